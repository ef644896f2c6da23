import { toBase64Url } from "./base64url.ts";

/**
 * What the relay reads: routing, never content. A relay keeps rooms of one host and its guests and
 * forwards sealed frames (crypto.ts) between them as binary WebSocket messages:
 * - host → relay: `[peer: u32 big-endian][sealed]`; peer 0 sends to every guest, another to that guest.
 * - relay → host: `[peer][sealed]` from that guest.
 * - guest ↔ relay: `[sealed]`, no prefix.
 * Besides, the relay tells the host of guests coming and going and tells guests whether the host is
 * there, as text messages (RelayNotice). Sockets: `GET /r/<roomId>?role=host|guest` (upgrade); a host
 * presents the relay's token, if it has one, as `Authorization: Bearer <token>`, and always its room
 * claim (HOST_CLAIM_HEADER): a secret of the host's own, not in any link. The relay keeps its digest
 * while the room lives, so a guest — who holds the room key, view-only ones too — cannot take the
 * host's place while the host is away and speak to the other guests as the host.
 */
export const HOST_CLAIM_HEADER = "x-omp-room-claim";

/** A fresh claim for a host: 32 random bytes, base64url. */
export function newHostClaim(): string {
  return toBase64Url(crypto.getRandomValues(new Uint8Array(32)));
}
export const BROADCAST = 0;
export const PEER_BYTES = 4;
/** The largest binary message a relay forwards; a host splits nothing, it trims what it shares. */
export const MAX_FRAME_BYTES = 4 * 1024 * 1024;

export type RelayNotice =
  | { t: "join"; peer: number }
  | { t: "leave"; peer: number }
  /** To guests: the host is connected (or not: wait, it may come back). */
  | { t: "host"; up: boolean };

export function withPeer(peer: number, sealed: Uint8Array): Uint8Array {
  const frame = new Uint8Array(PEER_BYTES + sealed.length);
  new DataView(frame.buffer).setUint32(0, peer);
  frame.set(sealed, PEER_BYTES);
  return frame;
}

export function splitPeer(frame: Uint8Array): { peer: number; sealed: Uint8Array } | undefined {
  if (frame.length < PEER_BYTES) return undefined;
  return { peer: new DataView(frame.buffer, frame.byteOffset, frame.byteLength).getUint32(0), sealed: frame.subarray(PEER_BYTES) };
}

export function parseNotice(text: string): RelayNotice | undefined {
  try {
    const value = JSON.parse(text) as RelayNotice;
    if (value.t === "join" || value.t === "leave") return Number.isInteger(value.peer) ? value : undefined;
    if (value.t === "host") return typeof value.up === "boolean" ? value : undefined;
  } catch {}
  return undefined;
}
