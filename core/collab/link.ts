/**
 * Collab links, as the original omp writes them (omp-docs/collab.md): a room id and the room secret,
 * dot-joined. The secret is the 32-byte AES-256-GCM room key, followed by a 16-byte write token in a
 * full link; a view-only link carries the key alone. In a browser link both ride in the URL fragment,
 * so no HTTP request ever carries them. Pure functions on strings and bytes: the web guest bundles
 * this file too.
 */
import { fromBase64Url, toBase64Url } from "./base64url.ts";

export const KEY_BYTES = 32;
export const WRITE_TOKEN_BYTES = 16;
const ROOM_ID_BYTES = 16;

/** Where a room lives and what the link grants. `relay` is a ws:// or wss:// origin. */
export interface CollabLink {
  relay: string;
  roomId: string;
  key: Uint8Array<ArrayBuffer>;
  /** Present in a full link: prompting and interrupting. */
  writeToken?: Uint8Array<ArrayBuffer>;
}

export class CollabLinkError extends Error {
  readonly kind = "collab_link";
}

const ROOM_ID = /^[A-Za-z0-9_-]{8,64}$/;

/** Whether `text` can be a room id: the relay refuses any other path before it opens a socket. */
export function isRoomId(text: string): boolean {
  return ROOM_ID.test(text);
}

/** A new room on `relay`: fresh id, key and write token from the system's CSPRNG. */
export function newRoom(relay: string): CollabLink {
  const random = (n: number) => crypto.getRandomValues(new Uint8Array(n));
  return { relay: normalizeRelay(relay), roomId: toBase64Url(random(ROOM_ID_BYTES)), key: random(KEY_BYTES), writeToken: random(WRITE_TOKEN_BYTES) };
}

/** The same room without the write token. */
export function viewOnly(link: CollabLink): CollabLink {
  return { relay: link.relay, roomId: link.roomId, key: link.key };
}

function secret(link: CollabLink): string {
  const bytes = new Uint8Array(KEY_BYTES + (link.writeToken ? WRITE_TOKEN_BYTES : 0));
  bytes.set(link.key);
  if (link.writeToken) bytes.set(link.writeToken, KEY_BYTES);
  return `${link.roomId}.${toBase64Url(bytes)}`;
}

/** For `omp join` / `/join`: `host[:port]/r/<room>.<secret>`, with the scheme when it is plain ws. */
export function joinLink(link: CollabLink): string {
  const url = new URL(link.relay);
  const where = url.protocol === "ws:" ? `ws://${url.host}` : url.host;
  return `${where}/r/${secret(link)}`;
}

/** For a browser: the relay serves the web guest at `/`, which reads the room from the fragment. */
export function webLink(link: CollabLink): string {
  const url = new URL(link.relay);
  return `${url.protocol === "ws:" ? "http:" : "https:"}//${url.host}/#${secret(link)}`;
}

/** The relay's WebSocket address for this room and role. */
export function socketUrl(link: CollabLink, role: "host" | "guest"): string {
  return `${link.relay}/r/${link.roomId}?role=${role}`;
}

function isLoopback(host: string): boolean {
  const name = host.replace(/^\[|\]$/g, "").toLowerCase();
  return name === "localhost" || name.endsWith(".localhost") || name === "::1" || /^127\.\d+\.\d+\.\d+$/.test(name);
}

/**
 * A relay as users write it (`relay.example.com`, `wss://r.example:8443`, `ws://localhost:7475`,
 * `https://…`) as a ws(s) origin. Plain ws only to loopback: elsewhere the room id and frame sizes
 * would travel in the clear.
 */
export function normalizeRelay(input: string): string {
  const text = input.trim().replace(/\/+$/, "");
  if (!text) throw new CollabLinkError("the relay address is empty; give a host such as relay.example.com or ws://127.0.0.1:7475");
  const withScheme = /^[a-z]+:\/\//i.test(text) ? text : `wss://${text}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw new CollabLinkError(`${JSON.stringify(input)} is not a relay address; give a host such as relay.example.com or ws://127.0.0.1:7475`);
  }
  const scheme = { "ws:": "ws:", "wss:": "wss:", "http:": "ws:", "https:": "wss:" }[url.protocol];
  if (!scheme) throw new CollabLinkError(`a relay is reached over ws:// or wss://, not ${url.protocol}`);
  if (scheme === "ws:" && !isLoopback(url.hostname)) throw new CollabLinkError(`plain ws:// is allowed for localhost only; use wss://${url.host}`);
  if (url.pathname !== "/" && url.pathname !== "") throw new CollabLinkError(`a relay address has no path (${url.pathname}); give only its host and port`);
  return `${scheme}//${url.host}`;
}

function parseSecret(text: string): Pick<CollabLink, "roomId" | "key" | "writeToken"> {
  // The dot form, and leniently the legacy `#` form and the `%23` a strict URL stack makes of it.
  const match = /^([A-Za-z0-9_-]+)(?:\.|#|%23)([A-Za-z0-9_-]+)$/.exec(text);
  if (!match || !ROOM_ID.test(match[1]!)) throw new CollabLinkError("this is not a collab link: expected <room>.<key> as /collab prints it");
  let bytes: Uint8Array<ArrayBuffer>;
  try {
    bytes = fromBase64Url(match[2]!);
  } catch {
    throw new CollabLinkError("the link's key is damaged (not base64url); copy the whole link again");
  }
  if (bytes.length === KEY_BYTES) return { roomId: match[1]!, key: bytes };
  if (bytes.length === KEY_BYTES + WRITE_TOKEN_BYTES) return { roomId: match[1]!, key: bytes.slice(0, KEY_BYTES), writeToken: bytes.slice(KEY_BYTES) };
  throw new CollabLinkError(`the link's key is ${bytes.length} bytes, not ${KEY_BYTES} or ${KEY_BYTES + WRITE_TOKEN_BYTES}; copy the whole link again`);
}

/**
 * Any form /collab prints or a user pastes: `https://host/#<room>.<key>`, `host[:port]/r/<room>.<key>`,
 * `ws://localhost:7475/r/<room>.<key>`, or a bare `<room>.<key>` on `defaultRelay`.
 */
export function parseLink(input: string, defaultRelay: string): CollabLink {
  const text = input.trim().replace(/^["']|["']$/g, "");
  const hash = text.indexOf("#");
  // The browser link, also as a terminal shows it without its scheme (`my.omp.sh/#<room>.<key>`).
  if (hash > 0 && (/^https?:\/\//i.test(text) || text[hash - 1] === "/")) {
    const origin = new URL(/^https?:\/\//i.test(text) ? text.slice(0, hash) : `https://${text.slice(0, hash)}`).origin;
    return { relay: normalizeRelay(origin), ...parseSecret(text.slice(hash + 1).replace(/^\/?r\//, "")) };
  }
  const room = text.lastIndexOf("/r/");
  if (room > 0) return { relay: normalizeRelay(text.slice(0, room)), ...parseSecret(text.slice(room + 3)) };
  if (!text.includes("/")) return { relay: normalizeRelay(defaultRelay), ...parseSecret(text) };
  throw new CollabLinkError(`${JSON.stringify(input)} is not a collab link: expected <room>.<key>, host/r/<room>.<key> or https://host/#<room>.<key>`);
}
