import type { ServerWebSocket } from "bun";
import { BROADCAST, type RelayNotice, splitPeer, withPeer } from "./relay-frames.ts";
import { CLOSE, type RateBucket } from "./relay-limits.ts";

/** What the relay knows of one socket: where it belongs and how much went through it, never what. */
export interface Connection {
  roomId: string;
  role: "host" | "guest";
  /** A guest's number in its room; 0 for the host. */
  peer: number;
  bucket: RateBucket;
  opened: number;
  framesIn: number;
  bytesIn: number;
  framesOut: number;
  bytesOut: number;
  /** Why the relay cut the connection off without a close frame (a reader too far behind). */
  dropped?: string;
}

export type RelaySocket = ServerWebSocket<Connection>;

/**
 * One host and its guests. Frames pass through as they are: the host's `[peer][sealed]` goes to
 * that guest (or every guest for peer 0) without its prefix, a guest's `[sealed]` goes to the host
 * with the guest's peer in front.
 */
export class Room {
  host: RelaySocket | undefined;
  /** The digest of the room claim its first host presented (relay-frames.ts); a later host must present the same. */
  claim: string | undefined;
  readonly guests = new Map<number, RelaySocket>();
  private nextPeer = 1;
  /** Set while the room has no host: guests are closed when it fires. */
  private hostWait: ReturnType<typeof setTimeout> | undefined;

  constructor(
    readonly id: string,
    private readonly deliver: (socket: RelaySocket, data: Uint8Array | string) => void,
  ) {}

  peerFor(): number {
    // u32 wraps long after any real room ends; 0 is the broadcast address.
    const peer = this.nextPeer;
    this.nextPeer = this.nextPeer >= 0xffffffff ? 1 : this.nextPeer + 1;
    return peer;
  }

  empty(): boolean {
    return this.host === undefined && this.guests.size === 0;
  }

  addHost(socket: RelaySocket): void {
    this.host = socket;
    this.stopWaiting();
    for (const peer of this.guests.keys()) this.notice(socket, { t: "join", peer });
    for (const guest of this.guests.values()) this.notice(guest, { t: "host", up: true });
  }

  addGuest(socket: RelaySocket, hostWaitMs: number): void {
    this.guests.set(socket.data.peer, socket);
    this.notice(socket, { t: "host", up: this.host !== undefined });
    if (this.host) this.notice(this.host, { t: "join", peer: socket.data.peer });
    else if (!this.hostWait) this.waitForHost(hostWaitMs);
  }

  remove(socket: RelaySocket, hostWaitMs: number): void {
    if (socket.data.role === "host") {
      if (this.host !== socket) return;
      this.host = undefined;
      for (const guest of this.guests.values()) this.notice(guest, { t: "host", up: false });
      if (this.guests.size > 0) this.waitForHost(hostWaitMs);
      return;
    }
    if (this.guests.get(socket.data.peer) !== socket) return;
    this.guests.delete(socket.data.peer);
    if (this.host) this.notice(this.host, { t: "leave", peer: socket.data.peer });
    if (this.guests.size === 0) this.stopWaiting();
  }

  /** A binary message from `from`, forwarded as the routing contract says. */
  forward(from: RelaySocket, frame: Uint8Array): "ok" | "bad-prefix" {
    if (from.data.role === "guest") {
      if (this.host) this.deliver(this.host, withPeer(from.data.peer, frame));
      return "ok";
    }
    const routed = splitPeer(frame);
    if (!routed) return "bad-prefix";
    if (routed.peer === BROADCAST) for (const guest of this.guests.values()) this.deliver(guest, routed.sealed);
    else {
      // A guest that left a moment ago: its frame has nobody to go to.
      const guest = this.guests.get(routed.peer);
      if (guest) this.deliver(guest, routed.sealed);
    }
    return "ok";
  }

  closeAll(code: number, reason: string): void {
    this.stopWaiting();
    this.host?.close(code, reason);
    for (const guest of this.guests.values()) guest.close(code, reason);
  }

  private notice(socket: RelaySocket, notice: RelayNotice): void {
    this.deliver(socket, JSON.stringify(notice));
  }

  private waitForHost(ms: number): void {
    this.stopWaiting();
    this.hostWait = setTimeout(() => {
      this.hostWait = undefined;
      for (const guest of this.guests.values()) guest.close(CLOSE.hostGone, `the host did not come back within ${Math.round(ms / 1000)} s`);
    }, ms);
    this.hostWait.unref?.();
  }

  private stopWaiting(): void {
    if (this.hostWait) clearTimeout(this.hostWait);
    this.hostWait = undefined;
  }
}
