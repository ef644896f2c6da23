import { EditorBuffer } from "./editor-buffer.ts";
import { type Key, keyId } from "../terminal/keys.ts";
import { graphemes, paint, visibleWidth } from "../render/text.ts";
import type { Theme } from "../render/theme.ts";

/** Pastes with more lines than this (or more characters) become a placeholder. */
const PASTE_LINES = 10;
const PASTE_CHARS = 2000;
const PLACEHOLDER = /\[paste #(\d+) \+\d+ lines\]/g;

export type EditorResult = "submit" | "changed" | "moved" | "ignored";

interface Segment {
  line: number;
  start: number;
  end: number;
}

/**
 * The prompt editor: multi-line text with readline keys, soft wrapping, history on Up/Down at the
 * first and last row, and large pastes held as `[paste #1 +120 lines]` placeholders until sent.
 */
export class PromptEditor {
  readonly buffer = new EditorBuffer();
  private readonly pastes = new Map<number, string>();
  private pasteCount = 0;
  private history: string[] | undefined;
  /** -1 while editing the draft; otherwise an index into `history` (0 is the newest). */
  private historyIndex = -1;
  private draft = "";
  private scrollTop = 0;
  private lastWidth = 80;

  constructor(
    private readonly theme: Theme,
    private readonly loadHistory: () => string[],
  ) {}

  get text(): string {
    return this.buffer.text;
  }

  get isEmpty(): boolean {
    return this.buffer.isEmpty;
  }

  setText(text: string): void {
    this.buffer.text = text;
    this.historyIndex = -1;
  }

  /** The text with placeholders expanded, and the editor emptied. */
  take(): string {
    const text = this.expand(this.buffer.text);
    this.buffer.text = "";
    this.pastes.clear();
    this.historyIndex = -1;
    this.history = undefined;
    return text;
  }

  expand(text: string): string {
    return text.replace(PLACEHOLDER, (whole, id: string) => this.pastes.get(Number(id)) ?? whole);
  }

  /** Line endings normalised; a large paste becomes one placeholder token. */
  paste(raw: string): void {
    const text = raw.replace(/\r\n?/g, "\n").replace(/\t/g, "    ");
    const lines = text.split("\n").length;
    if (lines > PASTE_LINES || text.length > PASTE_CHARS) {
      const id = ++this.pasteCount;
      this.pastes.set(id, text);
      this.buffer.insert(`[paste #${id} +${lines} lines]`);
    } else {
      this.buffer.insert(text);
    }
    this.historyIndex = -1;
  }

  handleKey(key: Key): EditorResult {
    const b = this.buffer;
    const id = keyId(key);
    switch (id) {
      case "enter": {
        // A trailing backslash continues the prompt on a new line, as in a shell.
        if (b.col === b.line.length && b.line.endsWith("\\")) {
          b.backspace();
          b.insert("\n");
          return "changed";
        }
        return "submit";
      }
      case "shift+enter":
      case "ctrl+enter":
      case "linefeed":
      case "ctrl+j":
        b.insert("\n");
        return "changed";
      case "backspace":
      case "shift+backspace": {
        const before = b.line.slice(0, b.col);
        const token = /\[paste #\d+ \+\d+ lines\]$/.exec(before);
        if (token) b.deleteBack(token[0].length);
        else b.backspace();
        return "changed";
      }
      case "delete":
      case "ctrl+d":
        if (b.isEmpty) return "ignored";
        b.deleteForward();
        return "changed";
      case "left":
      case "ctrl+b":
        b.left();
        return "moved";
      case "right":
      case "ctrl+f":
        b.right();
        return "moved";
      case "home":
      case "ctrl+a":
        b.home();
        return "moved";
      case "end":
      case "ctrl+e":
        b.end();
        return "moved";
      case "alt+b":
      case "ctrl+left":
      case "alt+left":
        b.wordLeft();
        return "moved";
      case "alt+f":
      case "ctrl+right":
      case "alt+right":
        b.wordRight();
        return "moved";
      case "ctrl+k":
        b.killToEnd();
        return "changed";
      case "ctrl+u":
        b.killToStart();
        return "changed";
      case "ctrl+w":
        b.killWhitespaceWord();
        return "changed";
      case "alt+backspace":
      case "ctrl+backspace":
        b.killWordBack();
        return "changed";
      case "alt+d":
      case "ctrl+delete":
        b.killWordForward();
        return "changed";
      case "ctrl+y":
        b.yank();
        return "changed";
      case "up":
        return this.vertical(-1);
      case "down":
        return this.vertical(1);
    }
    if (key.text !== undefined && !key.ctrl && !key.alt) {
      b.insert(key.text);
      return "changed";
    }
    return "ignored";
  }

  /** Up/Down: a visual row; past the first or last row, through the history. */
  private vertical(direction: -1 | 1): EditorResult {
    const segments = this.layout(this.contentWidth(this.lastWidth));
    const at = this.cursorSegment(segments);
    const target = at + direction;
    if (target < 0 || target >= segments.length) return this.browseHistory(direction) ? "changed" : "ignored";
    const from = segments[at]!;
    const x = visibleWidth(this.buffer.line.slice(from.start, this.buffer.col));
    const to = segments[target]!;
    const line = this.buffer.lines[to.line]!;
    let col = to.start;
    let width = 0;
    for (const g of graphemes(line.slice(to.start, to.end))) {
      const w = visibleWidth(g);
      if (width + w > x) break;
      width += w;
      col += g.length;
    }
    this.buffer.moveTo(to.line, col);
    return "moved";
  }

  private browseHistory(direction: -1 | 1): boolean {
    this.history ??= this.loadHistory();
    const next = this.historyIndex - direction;
    if (next < -1 || next >= this.history.length) return false;
    if (this.historyIndex === -1) this.draft = this.buffer.text;
    this.historyIndex = next;
    this.buffer.text = next === -1 ? this.draft : this.history[next]!;
    if (direction === -1) this.buffer.moveTo(0, this.buffer.lines[0]!.length);
    return true;
  }

  private contentWidth(width: number): number {
    return Math.max(4, width - 2);
  }

  /** Visual rows: each logical line cut by cells; a full last row gets an empty one after it for the cursor. */
  private layout(width: number): Segment[] {
    const segments: Segment[] = [];
    this.buffer.lines.forEach((line, index) => {
      let start = 0;
      let used = 0;
      let offset = 0;
      for (const g of graphemes(line)) {
        const w = visibleWidth(g);
        if (used + w > width) {
          segments.push({ line: index, start, end: offset });
          start = offset;
          used = 0;
        }
        used += w;
        offset += g.length;
      }
      segments.push({ line: index, start, end: line.length });
      if (used >= width && line.length > 0) segments.push({ line: index, start: line.length, end: line.length });
    });
    return segments;
  }

  /** The row holding the cursor; a cursor at a wrap point belongs to the row after it. */
  private cursorSegment(segments: Segment[]): number {
    const { row, col } = this.buffer;
    for (let i = 0; i < segments.length; i++) {
      const s = segments[i]!;
      if (s.line !== row) continue;
      const next = segments[i + 1];
      const lastOfLine = !next || next.line !== row;
      if (col >= s.start && (col < s.end || (col === s.end && lastOfLine))) return i;
    }
    return 0;
  }

  /** Rows to draw (prompt marker, then the text) and where the cursor is among them. */
  render(width: number, maxRows: number, hint: string, mode: "prompt" | "shell"): { rows: string[]; cursor: { row: number; col: number } } {
    this.lastWidth = width;
    const marker = mode === "shell" ? paint("! ", this.theme.fg("bashMode", "bold")) : paint("❯ ", this.theme.fg("prompt", "bold"));
    if (this.buffer.isEmpty) {
      return { rows: [marker + paint(hint, this.theme.fg("dim"))], cursor: { row: 0, col: 2 } };
    }
    const segments = this.layout(this.contentWidth(width));
    const at = this.cursorSegment(segments);
    if (at < this.scrollTop) this.scrollTop = at;
    if (at >= this.scrollTop + maxRows) this.scrollTop = at - maxRows + 1;
    this.scrollTop = Math.max(0, Math.min(this.scrollTop, segments.length - maxRows));
    const visible = segments.slice(this.scrollTop, this.scrollTop + maxRows);
    const tokenStyle = this.theme.fg("accent");
    const rows = visible.map((s, i) => {
      const text = this.buffer.lines[s.line]!.slice(s.start, s.end).replace(PLACEHOLDER, (token) => paint(token, tokenStyle));
      const prefix = i === 0 && this.scrollTop === 0 ? marker : "  ";
      return prefix + text;
    });
    const cursorSegment = segments[at]!;
    const col = 2 + visibleWidth(this.buffer.line.slice(cursorSegment.start, this.buffer.col));
    return { rows, cursor: { row: at - this.scrollTop, col } };
  }
}
