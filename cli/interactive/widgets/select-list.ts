import { type Key, keyId } from "../terminal/keys.ts";
import { graphemes, paint, padText, truncateText, visibleWidth } from "../render/text.ts";
import type { Theme } from "../render/theme.ts";
import { sanitize } from "../../shared/terminal-text.ts";

export interface Choice<T> {
  label: string;
  /** Shown dimmed after the label: a model's name and context, a session's age. */
  detail?: string;
  value: T;
  /** Marked as the current one (the model in use). */
  current?: boolean;
}

export type ListResult<T> = { type: "select"; value: T } | { type: "cancel" } | { type: "changed" } | { type: "ignored" };

/**
 * A picker in place of the editor: arrows and Page keys move, typing filters, Enter picks, Esc
 * cancels. Used by /model, /resume and /thinking.
 */
export class SelectList<T> {
  private selected = 0;
  private filter = "";
  private top = 0;

  private readonly choices: Choice<T>[];

  constructor(
    private readonly title: string,
    choices: Choice<T>[],
    private readonly filterable = true,
  ) {
    // Labels and details come from files too (session titles, imported transcripts): one line each, nothing that acts on the terminal.
    const line = (text: string) => sanitize(text).replace(/\n+/g, " ");
    this.choices = choices.map((choice) => ({ ...choice, label: line(choice.label), ...(choice.detail === undefined ? {} : { detail: line(choice.detail) }) }));
    const current = choices.findIndex((c) => c.current);
    if (current > 0) this.selected = current;
  }

  private visible(): Choice<T>[] {
    if (!this.filter) return this.choices;
    const words = this.filter.toLowerCase().split(/\s+/).filter(Boolean);
    return this.choices.filter((c) => {
      const haystack = `${c.label} ${c.detail ?? ""}`.toLowerCase();
      return words.every((w) => haystack.includes(w));
    });
  }

  handleKey(key: Key): ListResult<T> {
    const items = this.visible();
    const id = keyId(key);
    switch (id) {
      case "up":
      case "ctrl+p":
        this.selected = items.length === 0 ? 0 : (this.selected - 1 + items.length) % items.length;
        return { type: "changed" };
      case "down":
      case "ctrl+n":
        this.selected = items.length === 0 ? 0 : (this.selected + 1) % items.length;
        return { type: "changed" };
      case "pageup":
        this.selected = Math.max(0, this.selected - 8);
        return { type: "changed" };
      case "pagedown":
        this.selected = Math.min(Math.max(0, items.length - 1), this.selected + 8);
        return { type: "changed" };
      case "enter": {
        const choice = items[this.selected];
        return choice ? { type: "select", value: choice.value } : { type: "ignored" };
      }
      case "escape":
      case "ctrl+c":
      case "ctrl+g":
        return { type: "cancel" };
      case "backspace":
        if (!this.filterable || this.filter === "") return { type: "ignored" };
        this.filter = graphemes(this.filter).slice(0, -1).join("");
        this.selected = 0;
        return { type: "changed" };
    }
    if (this.filterable && key.text !== undefined && !key.ctrl && !key.alt) {
      this.filter += key.text;
      this.selected = 0;
      return { type: "changed" };
    }
    return { type: "ignored" };
  }

  render(width: number, maxRows: number, theme: Theme): string[] {
    const items = this.visible();
    const rows: string[] = [];
    const help = this.filterable ? "type to filter · ↑↓ move · enter select · esc cancel" : "↑↓ move · enter select · esc cancel";
    rows.push(fitStyled(this.title, help, width, theme));
    const listRows = Math.max(1, maxRows - (this.filterable ? 2 : 1));
    if (this.selected < this.top) this.top = this.selected;
    if (this.selected >= this.top + listRows) this.top = this.selected - listRows + 1;
    this.top = Math.max(0, Math.min(this.top, Math.max(0, items.length - listRows)));
    if (items.length === 0) rows.push(paint("  no matches", theme.fg("dim")));
    const labelWidth = Math.min(Math.max(...items.map((c) => visibleWidth(c.label)), 10) + 2, Math.floor(width * 0.6));
    for (const [offset, choice] of items.slice(this.top, this.top + listRows).entries()) {
      const index = this.top + offset;
      const pointer = index === this.selected ? "› " : "  ";
      const mark = choice.current ? "● " : "  ";
      const label = padText(choice.label, labelWidth);
      const detail = choice.detail ? truncateText(choice.detail, Math.max(0, width - 4 - labelWidth)) : "";
      const line = `${pointer}${mark}${label}${detail}`;
      const fitted = padText(line, width);
      if (index === this.selected) {
        rows.push(paint(fitted, `${theme.selected()};${theme.fg("accent", "bold")}`));
      } else {
        rows.push(`${pointer}${paint(mark, theme.fg("success"))}${label}${paint(detail, theme.fg("dim"))}`);
      }
    }
    if (this.filterable) rows.push(paint(`filter: ${this.filter}`, theme.fg("muted")) + (items.length < this.choices.length ? paint(`  (${items.length} of ${this.choices.length})`, theme.fg("dim")) : ""));
    return rows;
  }
}

function fitStyled(title: string, help: string, width: number, theme: Theme): string {
  const room = width - visibleWidth(title) - 2;
  return `${paint(title, theme.fg("accent", "bold"))}${room > 8 ? `  ${paint(truncateText(help, room), theme.fg("dim"))}` : ""}`;
}
