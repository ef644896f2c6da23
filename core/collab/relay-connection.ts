import { HOST_CLAIM_HEADER, MAX_FRAME_BYTES } from "./relay-frames.ts";

/** Reconnection waits this long first, doubling up to the most. */
const FIRST_RETRY_MS = 250;
const MOST_RETRY_MS = 5000;

export interface RelayConnectionHandlers {
  /** Connected (again): the peer says hello, the host its state. */
  open(): void;
  binary(frame: Uint8Array): void;
  text(text: string): void;
  /** The relay went away or could not be reached; another try follows (backoff). */
  down(reason: string): void;
}

/**
 * One WebSocket to a relay that comes back by itself: when the relay restarts or the network
 * drops, it retries with backoff until closed. Frames larger than a relay forwards are dropped on
 * the way in, and refused on the way out.
 */
export class RelayConnection {
  private socket: WebSocket | undefined;
  private closed = false;
  private retryMs = FIRST_RETRY_MS;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly url: string,
    private readonly handlers: RelayConnectionHandlers,
    /** A host's: the relay's token (`Authorization: Bearer`, never in the URL) and its room claim. */
    private readonly host?: { token?: string; claim: string },
  ) {}

  get connected(): boolean {
    return this.socket?.readyState === WebSocket.OPEN;
  }

  start(): void {
    if (this.closed || this.socket) return;
    const headers = this.host ? { [HOST_CLAIM_HEADER]: this.host.claim, ...(this.host.token ? { Authorization: `Bearer ${this.host.token}` } : {}) } : undefined;
    // Bun's WebSocket takes request headers; the browser's does not, and the web guest needs none.
    const socket = new WebSocket(this.url, headers ? ({ headers } as unknown as string[]) : undefined);
    socket.binaryType = "arraybuffer";
    this.socket = socket;
    let opened = false;
    socket.onopen = () => {
      opened = true;
      this.retryMs = FIRST_RETRY_MS;
      this.handlers.open();
    };
    socket.onmessage = (message) => {
      if (typeof message.data === "string") {
        if (message.data.length <= 64 * 1024) this.handlers.text(message.data);
      } else if (message.data instanceof ArrayBuffer && message.data.byteLength <= MAX_FRAME_BYTES) {
        this.handlers.binary(new Uint8Array(message.data));
      }
    };
    socket.onclose = (event) => {
      if (this.socket !== socket) return;
      this.socket = undefined;
      if (this.closed) return;
      const reason = opened ? `the relay closed the connection${event.reason ? ` (${event.reason})` : ""}` : `the relay at ${new URL(this.url).host} could not be reached${event.reason ? ` (${event.reason})` : ""}`;
      const wait = this.retryMs;
      this.retryMs = Math.min(MOST_RETRY_MS, this.retryMs * 2);
      this.handlers.down(reason);
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.start();
      }, wait);
    };
  }

  /** False when not connected: what was not sent is for the peer's next hello to catch up on. */
  send(frame: Uint8Array | string): boolean {
    if (!this.connected) return false;
    if (typeof frame !== "string" && frame.length > MAX_FRAME_BYTES) return false;
    this.socket!.send(frame);
    return true;
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    const socket = this.socket;
    this.socket = undefined;
    socket?.close(1000, "done");
  }
}
