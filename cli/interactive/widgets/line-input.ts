import { EditorBuffer } from "./editor-buffer.ts";
import type { Key } from "../terminal/keys.ts";
import { paint, truncateText, visibleWidth } from "../render/text.ts";
import { sanitize } from "../../shared/terminal-text.ts";
import type { Theme } from "../render/theme.ts";

/** A one-line answer typed into a prompt overlay (an approval's reason, a question's own answer). */
export class LineInput {
  private readonly buffer = new EditorBuffer();

  get text(): string {
    return this.buffer.text.trim();
  }

  /** Edits the line with `key` (named `id`); Enter, Esc and the rest are the prompt's. */
  handleKey(key: Key, id: string): void {
    if (id === "backspace") this.buffer.backspace();
    else if (id === "left") this.buffer.left();
    else if (id === "right") this.buffer.right();
    else if (id === "ctrl+u") this.buffer.killToStart();
    else if (id === "ctrl+w") this.buffer.killWhitespaceWord();
    else if (key.text !== undefined && !key.ctrl && !key.alt) this.buffer.insert(key.text);
  }

  paste(text: string): void {
    this.buffer.insert(text.replace(/\s*\n\s*/g, " "));
  }

  /** The line after a `❯ ` prompt, scrolled to keep the cursor in view, and the cursor's column. */
  render(width: number, theme: Theme): { row: string; col: number } {
    const prefix = paint("❯ ", theme.fg("prompt", "bold"));
    const text = sanitize(this.buffer.text);
    const before = visibleWidth(sanitize(this.buffer.text.slice(0, this.buffer.col)));
    const shift = Math.max(0, before - (width - 4));
    return { row: prefix + truncateText(text.slice(shift), width - 2), col: 2 + before - shift };
  }
}
