import { type Key, keyId } from "../terminal/keys.ts";
import { graphemes, paint, truncateText } from "../render/text.ts";
import { sanitize } from "../../shared/terminal-text.ts";
import type { Theme } from "../render/theme.ts";

export type SearchResult = { type: "accept"; text: string } | { type: "cancel" } | { type: "changed" };

/**
 * Ctrl+R: reverse incremental search through the prompt history, like a shell's. Typing narrows,
 * Ctrl+R again goes to the next older match, Enter (or an arrow) takes the match into the
 * editor, Esc or Ctrl+G puts the draft back.
 */
export class HistorySearch {
  private query = "";
  private results: string[] = [];
  private index = 0;

  constructor(private readonly find: (query: string) => string[]) {
    this.results = find("");
  }

  get match(): string | undefined {
    return this.results[this.index];
  }

  handleKey(key: Key): SearchResult {
    const id = keyId(key);
    switch (id) {
      case "ctrl+r":
      case "up":
        if (this.index < this.results.length - 1) this.index++;
        return { type: "changed" };
      case "ctrl+s":
      case "down":
        if (this.index > 0) this.index--;
        return { type: "changed" };
      case "enter":
      case "tab":
      case "left":
      case "right":
      case "ctrl+a":
      case "ctrl+e":
        return this.match === undefined ? { type: "cancel" } : { type: "accept", text: this.match };
      case "escape":
      case "ctrl+g":
      case "ctrl+c":
        return { type: "cancel" };
      case "backspace":
        this.query = graphemes(this.query).slice(0, -1).join("");
        this.refresh();
        return { type: "changed" };
    }
    if (key.text !== undefined && !key.ctrl && !key.alt) {
      this.query += key.text;
      this.refresh();
    }
    return { type: "changed" };
  }

  private refresh(): void {
    this.results = this.find(this.query);
    this.index = 0;
  }

  render(width: number, theme: Theme): string[] {
    const label = this.match === undefined && this.query ? "(failing reverse-i-search)" : "(reverse-i-search)";
    const head = `${label}'${this.query}': `;
    const match = sanitize((this.match ?? "").split("\n")[0] ?? "");
    const more = (this.match ?? "").includes("\n") ? " …" : "";
    const position = this.results.length > 1 ? `  [${this.index + 1}/${this.results.length}]` : "";
    return [
      paint(head, theme.fg("accent")) + truncateText(match + more, Math.max(0, width - head.length - position.length)) + paint(position, theme.fg("dim")),
      paint("ctrl+r older · enter take · esc cancel", theme.fg("dim")),
    ];
  }
}
