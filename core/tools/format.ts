import type { ToolResult } from "./types.ts";

/** Shortens one line for the model, saying how much was dropped so it is never mistaken for the whole line. */
export function cutLine(line: string, max: number): string {
  if (line.length <= max) return line;
  return `${line.slice(0, max)}… [line cut: ${line.length - max} more chars]`;
}

export function textResult<D = never>(text: string, details?: D): ToolResult<D> {
  return details === undefined ? { content: [{ type: "text", text }] } : { content: [{ type: "text", text }], details };
}

/** A result the model sees as a failed call; the text should say what to do next. */
export function errorResult<D = never>(text: string, details?: D): ToolResult<D> {
  return { ...textResult(text, details), isError: true };
}
