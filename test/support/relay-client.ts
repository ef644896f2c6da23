// Raw WebSocket clients of the collab relay that play hosts and guests with the collab base modules
// (core/collab/*), so a test or bench sees exactly the frames and notices the relay sends. Free of
// bun:test, so the bench uses them too.
import { HOST_CLAIM_HEADER, type RelayNotice, parseNotice, splitPeer, withPeer } from "../../core/collab/relay-frames.ts";
import { importRoomKey } from "../../core/collab/crypto.ts";
import { openJson, sealJson } from "../../core/collab/sealed-json.ts";
import type { CollabLink } from "../../core/collab/link.ts";
import { GuestMessage, type HostMessage } from "../../core/collab/messages.ts";
import { type Socket, connect } from "node:net";

/** Polls `get` until it gives a value; `failed` says why to give up early. */
export async function waitUntil<T>(get: () => T | undefined, failed: () => string | undefined = () => undefined, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = get();
    if (value !== undefined && value !== false) return value;
    const why = failed();
    if (why) throw new Error(why);
    if (Date.now() > deadline) throw new Error(`gave up after ${ms} ms`);
    await Bun.sleep(10);
  }
}

/** The room claim the tests' hosts present (relay-frames.ts). */
export const TEST_HOST_CLAIM = "test-host-claim-0123456789";

/** A WebSocket to the relay that keeps what arrives: binary frames and the relay's notices apart. */
export class RelayClient {
  readonly frames: Uint8Array[] = [];
  readonly notices: RelayNotice[] = [];
  closed: { code: number; reason: string } | undefined;
  private constructor(readonly socket: WebSocket) {
    socket.binaryType = "arraybuffer";
    socket.addEventListener("message", (event) => {
      if (typeof event.data === "string") {
        const notice = parseNotice(event.data);
        if (notice) this.notices.push(notice);
      } else this.frames.push(new Uint8Array(event.data as ArrayBuffer));
    });
    socket.addEventListener("close", (event) => (this.closed = { code: event.code, reason: event.reason }));
  }

  /** Opens `/r/<room>?role=…`; rejects when the relay refuses the upgrade. */
  static async connect(relayUrl: string, roomId: string, role: "host" | "guest", headers: Record<string, string> = {}): Promise<RelayClient> {
    // A host presents a room claim; the tests' hosts share one unless they bring their own.
    const sent = role === "host" ? { [HOST_CLAIM_HEADER]: TEST_HOST_CLAIM, ...headers } : headers;
    const socket = new WebSocket(`${relayUrl.replace(/^http/, "ws")}/r/${roomId}?role=${role}`, { headers: sent });
    const client = new RelayClient(socket);
    await new Promise<void>((resolve, reject) => {
      socket.addEventListener("open", () => resolve());
      socket.addEventListener("error", () => reject(new Error(`the relay refused the ${role}`)));
      socket.addEventListener("close", () => reject(new Error(`the relay closed the ${role}`)));
    });
    return client;
  }

  send(data: Uint8Array | string): void {
    this.socket.send(data);
  }

  async nextFrame(index: number): Promise<Uint8Array> {
    return waitUntil(() => this.frames[index], () => (this.closed ? `closed (${this.closed.code} ${this.closed.reason}) before frame ${index}` : undefined));
  }

  async notice(match: (notice: RelayNotice) => boolean): Promise<RelayNotice> {
    return waitUntil(() => this.notices.find(match), () => (this.closed ? `closed (${this.closed.code} ${this.closed.reason}) without the notice` : undefined));
  }

  async whenClosed(): Promise<{ code: number; reason: string }> {
    return waitUntil(() => this.closed);
  }

  close(): void {
    this.socket.close();
  }
}

/** The test as a collab host: seals HostMessages to guests and opens what they send, with the room's key. */
export class SealedHost {
  private readonly opened: { peer: number; message: GuestMessage }[] = [];

  private constructor(
    readonly client: RelayClient,
    readonly link: CollabLink,
    private readonly key: CryptoKey,
  ) {}

  static async connect(relayUrl: string, link: CollabLink, headers: Record<string, string> = {}): Promise<SealedHost> {
    return new SealedHost(await RelayClient.connect(relayUrl, link.roomId, "host", headers), link, await importRoomKey(link.key));
  }

  /** To one guest, or every guest with peer 0. */
  async send(peer: number, message: HostMessage): Promise<void> {
    this.client.send(withPeer(peer, await sealJson(this.key, this.link.roomId, message)));
  }

  /** Every guest message so far, opened and checked against GuestMessage. */
  async messages(): Promise<{ peer: number; message: GuestMessage }[]> {
    while (this.opened.length < this.client.frames.length) {
      const { peer, sealed } = splitPeer(this.client.frames[this.opened.length]!)!;
      const message = await openJson(this.key, this.link.roomId, sealed, GuestMessage);
      if (!message) throw new Error(`peer ${peer} sent a frame that is not a sealed GuestMessage`);
      this.opened.push({ peer, message });
    }
    return this.opened;
  }

  /** The first guest message that matches, waiting for it. */
  async message(match: (entry: { peer: number; message: GuestMessage }) => boolean): Promise<{ peer: number; message: GuestMessage }> {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const found = (await this.messages()).find(match);
      if (found) return found;
      if (this.client.closed) throw new Error(`the host's socket closed (${this.client.closed.code} ${this.client.closed.reason})`);
      if (Date.now() > deadline) throw new Error("no such guest message within 30 s");
      await Bun.sleep(10);
    }
  }
}

/** A guest that only does the WebSocket handshake over raw TCP: it answers no ping, and reads only as the test lets it. */
export function rawGuest(port: number, roomId: string): Socket {
  const socket = connect({ host: "127.0.0.1", port });
  socket.write(`GET /r/${roomId}?role=guest HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n`);
  return socket;
}
