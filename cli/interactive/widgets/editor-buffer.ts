import { graphemes } from "../render/text.ts";

/**
 * The text being typed: lines, a cursor, and the readline-style operations on them. No terminal
 * here; `PromptEditor` maps keys to these and draws the result.
 */
export class EditorBuffer {
  lines: string[] = [""];
  /** The cursor: a line, and a UTF-16 offset into it that is always on a grapheme boundary. */
  row = 0;
  col = 0;
  /** What the last kill (Ctrl+K, Ctrl+U, Ctrl+W, Alt+D) removed, for Ctrl+Y. */
  private killed = "";

  get text(): string {
    return this.lines.join("\n");
  }

  set text(value: string) {
    this.lines = value.split("\n");
    this.row = this.lines.length - 1;
    this.col = this.line.length;
  }

  get isEmpty(): boolean {
    return this.lines.length === 1 && this.lines[0] === "";
  }

  get line(): string {
    return this.lines[this.row]!;
  }

  private set line(value: string) {
    this.lines[this.row] = value;
  }

  insert(text: string): void {
    const parts = text.split("\n");
    const before = this.line.slice(0, this.col);
    const after = this.line.slice(this.col);
    if (parts.length === 1) {
      this.line = before + text + after;
      this.col += text.length;
      return;
    }
    const last = parts[parts.length - 1]!;
    this.lines.splice(this.row, 1, before + parts[0]!, ...parts.slice(1, -1), last + after);
    this.row += parts.length - 1;
    this.col = last.length;
  }

  backspace(): void {
    if (this.col > 0) {
      const start = this.col - lastGrapheme(this.line.slice(0, this.col)).length;
      this.line = this.line.slice(0, start) + this.line.slice(this.col);
      this.col = start;
    } else if (this.row > 0) {
      const previous = this.lines[this.row - 1]!;
      this.lines.splice(this.row - 1, 2, previous + this.line);
      this.row--;
      this.col = previous.length;
    }
  }

  deleteForward(): void {
    if (this.col < this.line.length) {
      const end = this.col + (graphemes(this.line.slice(this.col))[0]?.length ?? 1);
      this.line = this.line.slice(0, this.col) + this.line.slice(end);
    } else if (this.row < this.lines.length - 1) {
      this.lines.splice(this.row, 2, this.line + this.lines[this.row + 1]!);
    }
  }

  /** Removes `[start, this.col)` of the current line (a token such as a paste placeholder). */
  deleteBack(length: number): void {
    this.line = this.line.slice(0, this.col - length) + this.line.slice(this.col);
    this.col -= length;
  }

  left(): void {
    if (this.col > 0) this.col -= lastGrapheme(this.line.slice(0, this.col)).length;
    else if (this.row > 0) {
      this.row--;
      this.col = this.line.length;
    }
  }

  right(): void {
    if (this.col < this.line.length) this.col += graphemes(this.line.slice(this.col))[0]?.length ?? 1;
    else if (this.row < this.lines.length - 1) {
      this.row++;
      this.col = 0;
    }
  }

  home(): void {
    this.col = 0;
  }

  end(): void {
    this.col = this.line.length;
  }

  moveTo(row: number, col: number): void {
    this.row = Math.max(0, Math.min(row, this.lines.length - 1));
    this.col = Math.max(0, Math.min(col, this.line.length));
  }

  /** Alt+B / Ctrl+Left: to the start of this or the previous word. */
  wordLeft(): void {
    if (this.col === 0) return this.left();
    this.col = wordStartBefore(this.line, this.col);
  }

  /** Alt+F / Ctrl+Right: to the end of this or the next word. */
  wordRight(): void {
    if (this.col === this.line.length) return this.right();
    this.col = wordEndAfter(this.line, this.col);
  }

  /** Ctrl+K: to the end of the line; at the end, joins the next line. */
  killToEnd(): void {
    if (this.col === this.line.length) {
      if (this.row < this.lines.length - 1) {
        this.killed = "\n";
        this.deleteForward();
      }
      return;
    }
    this.killed = this.line.slice(this.col);
    this.line = this.line.slice(0, this.col);
  }

  /** Ctrl+U: to the start of the line. */
  killToStart(): void {
    if (this.col === 0) return;
    this.killed = this.line.slice(0, this.col);
    this.line = this.line.slice(this.col);
    this.col = 0;
  }

  /** Ctrl+W: back to the previous whitespace, as readline's unix-word-rubout. */
  killWhitespaceWord(): void {
    if (this.col === 0) return this.backspace();
    let start = this.col;
    while (start > 0 && /\s/.test(this.line[start - 1]!)) start--;
    while (start > 0 && !/\s/.test(this.line[start - 1]!)) start--;
    this.killRange(start, this.col);
  }

  /** Alt+Backspace: back to the start of the word. */
  killWordBack(): void {
    if (this.col === 0) return this.backspace();
    this.killRange(wordStartBefore(this.line, this.col), this.col);
  }

  /** Alt+D: to the end of the word. */
  killWordForward(): void {
    if (this.col === this.line.length) return this.deleteForward();
    this.killRange(this.col, wordEndAfter(this.line, this.col));
  }

  /** Ctrl+Y: puts back what was killed last. */
  yank(): void {
    if (this.killed) this.insert(this.killed);
  }

  private killRange(start: number, end: number): void {
    this.killed = this.line.slice(start, end);
    this.line = this.line.slice(0, start) + this.line.slice(end);
    this.col = start;
  }
}

const WORD = /[\p{L}\p{N}_]/u;

function lastGrapheme(text: string): string {
  const all = graphemes(text);
  return all[all.length - 1] ?? "";
}

function wordStartBefore(line: string, col: number): number {
  let i = col;
  while (i > 0 && !WORD.test(line[i - 1]!)) i--;
  while (i > 0 && WORD.test(line[i - 1]!)) i--;
  return i;
}

function wordEndAfter(line: string, col: number): number {
  let i = col;
  while (i < line.length && !WORD.test(line[i]!)) i++;
  while (i < line.length && WORD.test(line[i]!)) i++;
  return i;
}
