/** One server-sent event, after the blank line that dispatches it. */
export interface SseEvent {
  /** `message` when the server sent no `event:` line, as the spec says. */
  event: string;
  /** The `data:` lines joined with "\n". */
  data: string;
  id?: string;
}

/**
 * Parses a `text/event-stream` body per the WHATWG rules: LF, CR and CRLF line ends (a CRLF may be
 * split across chunks), `:` comments, one optional space after the colon, multi-line data, events
 * without data skipped. An event cut off before its blank line is dropped, which is what lets the
 * adapters notice a stream that was closed early.
 */
export async function* parseSse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder();
  const reader = body.getReader();
  let buffer = "";
  // True when the previous chunk ended in "\r": a leading "\n" in the next one is the same line end.
  let pendingCr = false;
  let event = "";
  let data: string[] = [];
  let id: string | undefined;
  let finished = false;

  try {
    while (true) {
      const { done, value } = await reader.read();
      if (done) {
        finished = true;
        return;
      }
      let text = decoder.decode(value, { stream: true });
      if (pendingCr && text.startsWith("\n")) text = text.slice(1);
      pendingCr = false;
      // What was carried over holds no line end, so the search starts at the new text.
      const carried = buffer.length;
      buffer += text;

      let start = 0;
      // Next CR/LF positions, searched again only once passed: a chunk of many LF-only lines must
      // not rescan the rest of the buffer for a CR on every line.
      let lf = buffer.indexOf("\n", carried);
      let cr = buffer.indexOf("\r", carried);
      while (start < buffer.length) {
        if (lf !== -1 && lf < start) lf = buffer.indexOf("\n", start);
        if (cr !== -1 && cr < start) cr = buffer.indexOf("\r", start);
        let end: number;
        let next: number;
        if (cr !== -1 && (lf === -1 || cr < lf)) {
          end = cr;
          if (cr + 1 < buffer.length) next = buffer[cr + 1] === "\n" ? cr + 2 : cr + 1;
          else {
            next = cr + 1;
            pendingCr = true;
          }
        } else if (lf !== -1) {
          end = lf;
          next = lf + 1;
        } else break;

        const line = buffer.slice(start, end);
        start = next;
        if (line === "") {
          if (data.length > 0) yield id === undefined ? { event: event || "message", data: data.join("\n") } : { event: event || "message", data: data.join("\n"), id };
          event = "";
          data = [];
          continue;
        }
        if (line.startsWith(":")) continue;
        const colon = line.indexOf(":");
        const field = colon === -1 ? line : line.slice(0, colon);
        let value = colon === -1 ? "" : line.slice(colon + 1);
        if (value.startsWith(" ")) value = value.slice(1);
        if (field === "data") data.push(value);
        else if (field === "event") event = value;
        else if (field === "id" && !value.includes("\0")) id = value;
      }
      buffer = buffer.slice(start);
    }
  } finally {
    // A consumer that stops early must not leave the connection streaming into nowhere.
    if (!finished) reader.cancel().catch(() => {});
  }
}

/** One event as sent: `event:` only when named (Anthropic and Responses streams name theirs, Chat Completions does not). */
export function sseFrame(data: unknown, event?: string): string {
  return `${event === undefined ? "" : `event: ${event}\n`}data: ${JSON.stringify(data)}\n\n`;
}

/** A comment line: readers skip it, proxies and idle timers see traffic. */
export const SSE_KEEPALIVE = ": keepalive\n\n";

export const SSE_HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache",
  connection: "keep-alive",
  "x-accel-buffering": "no",
} as const;
