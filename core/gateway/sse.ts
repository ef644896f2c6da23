/** One SSE frame; `event` is named for Anthropic and Responses streams, left out for Chat Completions. */
export function frame(data: unknown, event?: string): string {
  return `${event === undefined ? "" : `event: ${event}\n`}data: ${JSON.stringify(data)}\n\n`;
}

export const SSE_HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache",
  connection: "keep-alive",
  "x-accel-buffering": "no",
} as const;
