import { deserializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

/** What is kept of an over-long line to find the request it answers: its id sits near one end. */
const EDGE = 512;

/**
 * Stands in for the SDK's stdio ReadBuffer, which throws past its 10 MB limit and so closes the
 * transport (the "Connection closed" a big tool result ended in, and a respawned server). A line
 * over the limit is skipped as it streams in, never held whole, and becomes a JSON-RPC error for
 * the request it answered, so that one call fails with a clear message and the server stays up.
 */
export class BoundedLineBuffer {
  private chunks: Buffer[] = [];
  private size = 0;
  private skipping: { bytes: number; head: Buffer; tail: Buffer } | undefined;
  private readonly ready: (Buffer | JSONRPCMessage)[] = [];

  constructor(
    private readonly maxBytes: number,
    private readonly tooLarge: (bytes: number) => string,
  ) {}

  append(chunk: Buffer): void {
    let rest = chunk;
    while (rest.length > 0) {
      const newline = rest.indexOf(10);
      const piece = newline < 0 ? rest : rest.subarray(0, newline);
      if (this.skipping) {
        this.skipping.bytes += piece.length;
        this.skipping.tail = Buffer.concat([this.skipping.tail, piece]).subarray(-EDGE);
      } else if (this.size + piece.length > this.maxBytes) {
        const head = Buffer.concat([...this.chunks, piece.subarray(0, EDGE)]).subarray(0, EDGE);
        this.skipping = { bytes: this.size + piece.length, head, tail: piece.subarray(-EDGE) };
        this.chunks = [];
        this.size = 0;
      } else {
        this.chunks.push(piece);
        this.size += piece.length;
      }
      if (newline < 0) return;
      if (this.skipping) {
        const answer = this.refusal(this.skipping);
        if (answer) this.ready.push(answer);
        this.skipping = undefined;
      } else {
        this.ready.push(Buffer.concat(this.chunks));
        this.chunks = [];
        this.size = 0;
      }
      rest = rest.subarray(newline + 1);
    }
  }

  readMessage(): JSONRPCMessage | null {
    for (;;) {
      const next = this.ready.shift();
      if (next === undefined) return null;
      if (!Buffer.isBuffer(next)) return next;
      const line = next.toString("utf8").replace(/\r$/, "");
      if (line.trim() === "") continue;
      return deserializeMessage(line);
    }
  }

  clear(): void {
    this.chunks = [];
    this.size = 0;
    this.skipping = undefined;
    this.ready.length = 0;
  }

  /** The error answer for the skipped line's request; undefined when no id shows (a notification: nobody waits). */
  private refusal(skipped: { bytes: number; head: Buffer; tail: Buffer }): JSONRPCMessage | undefined {
    // Only the message's own id: at the very end (`{"result":…,"jsonrpc":"2.0","id":3}`, as JS
    // servers write it) or at the very start (`{"jsonrpc":"2.0","id":3,…}`, as Python ones do).
    const idPattern = '(\\d+|"(?:[^"\\\\]|\\\\.)*")';
    const match =
      new RegExp(`"id"\\s*:\\s*${idPattern}\\s*}\\s*$`).exec(skipped.tail.toString("latin1")) ??
      new RegExp(`^\\s*{\\s*(?:"jsonrpc"\\s*:\\s*"2\\.0"\\s*,\\s*)?"id"\\s*:\\s*${idPattern}`).exec(skipped.head.toString("latin1"));
    if (!match) return undefined;
    const id = JSON.parse(match[1]!) as string | number;
    return { jsonrpc: "2.0", id, error: { code: -32603, message: this.tooLarge(skipped.bytes), data: { ompResultTooLarge: true } } } as JSONRPCMessage;
  }
}
