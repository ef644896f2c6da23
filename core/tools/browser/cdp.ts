import type { Readable, Writable } from "node:stream";

/**
 * A DevTools-protocol client over Chromium's `--remote-debugging-pipe` (fd 3 in, fd 4 out, one
 * JSON message per NUL-terminated frame), with flattened target sessions. Own code rather than
 * puppeteer-core: the tool needs a dozen commands, and a pipe needs no port, which the sandbox
 * would have to open (its network is the egress proxy's port alone).
 */

/** A screenshot of a big page is the largest message; past this the browser is broken or hostile. */
const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

type Listener = (params: Record<string, unknown>, sessionId: string | undefined) => void;

export class CdpError extends Error {}

export class Cdp {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (value: Record<string, unknown>) => void; reject: (error: Error) => void; method: string }>();
  private readonly listeners = new Map<string, Set<Listener>>();
  private buffered: Buffer[] = [];
  private bufferedBytes = 0;
  private closedWith: Error | undefined;

  constructor(
    private readonly out: Writable,
    input: Readable,
  ) {
    input.on("data", (chunk: Buffer) => this.receive(chunk));
    input.on("close", () => this.close(new CdpError("The browser exited.")));
    input.on("error", (error) => this.close(new CdpError(`The browser's pipe failed: ${error.message}`)));
  }

  send(method: string, params: Record<string, unknown> = {}, sessionId?: string): Promise<Record<string, unknown>> {
    if (this.closedWith) return Promise.reject(this.closedWith);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, method });
      this.out.write(`${JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) })}\0`);
    });
  }

  on(method: string, listener: Listener): () => void {
    let set = this.listeners.get(method);
    if (!set) this.listeners.set(method, (set = new Set()));
    set.add(listener);
    return () => set.delete(listener);
  }

  close(error: Error): void {
    if (this.closedWith) return;
    this.closedWith = error;
    for (const call of this.pending.values()) call.reject(error);
    this.pending.clear();
  }

  private receive(chunk: Buffer): void {
    let start = 0;
    for (let end = chunk.indexOf(0); end !== -1; end = chunk.indexOf(0, start)) {
      this.buffered.push(chunk.subarray(start, end));
      const frame = Buffer.concat(this.buffered).toString("utf8");
      this.buffered = [];
      this.bufferedBytes = 0;
      start = end + 1;
      this.dispatch(frame);
    }
    if (start < chunk.length) {
      this.buffered.push(chunk.subarray(start));
      this.bufferedBytes += chunk.length - start;
      if (this.bufferedBytes > MAX_MESSAGE_BYTES) this.close(new CdpError(`The browser sent a message over ${MAX_MESSAGE_BYTES / 1024 / 1024} MB; it was dropped.`));
    }
  }

  private dispatch(frame: string): void {
    let message: { id?: number; method?: string; params?: Record<string, unknown>; result?: Record<string, unknown>; error?: { message: string }; sessionId?: string };
    try {
      message = JSON.parse(frame);
    } catch {
      return;
    }
    if (message.id !== undefined) {
      const call = this.pending.get(message.id);
      if (!call) return;
      this.pending.delete(message.id);
      if (message.error) call.reject(new CdpError(`${call.method}: ${message.error.message}`));
      else call.resolve(message.result ?? {});
      return;
    }
    if (message.method) for (const listener of this.listeners.get(message.method) ?? []) listener(message.params ?? {}, message.sessionId);
  }
}
