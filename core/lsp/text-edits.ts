import type { Position, TextEdit } from "vscode-languageserver-protocol";

/** The UTF-16 offset of an LSP position in `text` (LSP's default encoding, as JS strings count). */
export function offsetAt(text: string, position: Position): number {
  let offset = 0;
  for (let line = 0; line < position.line; line++) {
    const next = text.indexOf("\n", offset);
    if (next === -1) return text.length;
    offset = next + 1;
  }
  const end = text.indexOf("\n", offset);
  return Math.min(offset + position.character, end === -1 ? text.length : end);
}

/** Applies a server's edits, which refer to the original text and must not overlap, last first. */
export function applyTextEdits(text: string, edits: readonly TextEdit[]): string {
  const located = edits.map((edit) => ({ start: offsetAt(text, edit.range.start), end: offsetAt(text, edit.range.end), newText: edit.newText }));
  located.sort((a, b) => b.start - a.start || b.end - a.end);
  let result = text;
  for (const edit of located) result = result.slice(0, edit.start) + edit.newText + result.slice(edit.end);
  return result;
}
