import type { Turn, TurnTree } from "../../../core/session/tree.ts";
import { type Key, keyId } from "../terminal/keys.ts";
import type { Panel } from "./panel.ts";
import { graphemes, padText, paint, truncateText } from "../render/text.ts";
import { sanitize } from "../../shared/terminal-text.ts";
import type { Theme } from "../render/theme.ts";

/** What Enter does: /tree goes to just after the turn, /branch to just before it with its message in the editor. */
export type TreeAction = "go" | "edit";

export interface TreePanelHandlers {
  pick(turn: Turn, action: TreeAction): void;
  label(turn: Turn, label: string): void;
  changed(): void;
}

interface Row {
  turn: Turn;
  /** Guides and indentation before the turn. */
  prefix: string;
  hidden: number;
}

/** How far branches indent at most, so a deeply branched session still leaves room for the text. */
const MAX_INDENT = 24;

/**
 * The session tree in the editor's place: a line per user turn (time, label, first line), branches
 * indented below the turn they branched from, the current path marked. ↑↓ move, Enter goes there
 * (or edits, for /branch), e edits, l labels, ← → collapse and expand a turn's branches.
 */
export class TreePanel implements Panel {
  private rows: Row[] = [];
  private selected = 0;
  private top = 0;
  /** The label being typed, while labelling. */
  private editing: string | undefined;

  constructor(
    private readonly tree: TurnTree,
    private readonly enter: TreeAction,
    /** Collapsed turns, kept by the caller across openings. */
    private readonly collapsed: Set<string>,
    private readonly handlers: TreePanelHandlers,
  ) {
    this.flatten();
    const current = this.tree.current ? this.rows.findIndex((row) => row.turn === this.tree.current) : -1;
    this.selected = current === -1 ? Math.max(0, this.rows.length - 1) : current;
  }

  /** The rows shown, in order: a depth-first walk without recursion (a 1,000-turn line is 1,000 deep). */
  private flatten(): void {
    const rows: Row[] = [];
    const stack: { turn: Turn; indent: string; guide: string }[] = this.tree.roots
      .map((turn, index, all) => ({ turn, indent: "", guide: all.length > 1 ? (index === all.length - 1 ? "└─ " : "├─ ") : "" }))
      .reverse();
    while (stack.length > 0) {
      const { turn, indent, guide } = stack.pop()!;
      const closed = this.collapsed.has(turn.id) && turn.children.length > 0;
      rows.push({ turn, prefix: indent + guide, hidden: closed ? countBelow(turn) : 0 });
      if (closed) continue;
      const branched = turn.children.length > 1;
      const childIndent = (indent + (guide === "├─ " ? "│  " : guide ? "   " : "")).slice(0, MAX_INDENT);
      for (let index = turn.children.length - 1; index >= 0; index--) {
        const child = turn.children[index]!;
        stack.push({ turn: child, indent: childIndent, guide: branched ? (index === turn.children.length - 1 ? "└─ " : "├─ ") : "" });
      }
    }
    this.rows = rows;
  }

  get rowCount(): number {
    return this.rows.length;
  }

  handleKey(key: Key): "close" | undefined {
    const id = keyId(key);
    if (this.editing !== undefined) return this.editKey(key, id);
    const row = this.rows[this.selected];
    switch (id) {
      case "escape":
      case "ctrl+c":
      case "ctrl+g":
      case "q":
        return "close";
      case "up":
      case "ctrl+p":
        this.selected = Math.max(0, this.selected - 1);
        break;
      case "down":
      case "ctrl+n":
        this.selected = Math.min(this.rows.length - 1, this.selected + 1);
        break;
      case "pageup":
        this.selected = Math.max(0, this.selected - 10);
        break;
      case "pagedown":
        this.selected = Math.min(this.rows.length - 1, this.selected + 10);
        break;
      case "home":
        this.selected = 0;
        break;
      case "end":
        this.selected = this.rows.length - 1;
        break;
      case "left":
      case "right":
        if (!row || row.turn.children.length === 0) break;
        if (id === "left") this.collapsed.add(row.turn.id);
        else this.collapsed.delete(row.turn.id);
        this.flatten();
        this.selected = this.rows.findIndex((candidate) => candidate.turn === row.turn);
        break;
      case "enter":
        if (row) this.handlers.pick(row.turn, this.enter);
        return row ? "close" : undefined;
      case "e":
        if (row) this.handlers.pick(row.turn, "edit");
        return row ? "close" : undefined;
      case "l":
      case "L":
        if (row) this.editing = row.turn.label ?? "";
        break;
      default:
        return undefined;
    }
    this.handlers.changed();
    return undefined;
  }

  private editKey(key: Key, id: string): undefined {
    const row = this.rows[this.selected];
    if (id === "escape" || id === "ctrl+c") this.editing = undefined;
    else if (id === "enter" && row) {
      const label = this.editing!.trim();
      this.editing = undefined;
      if (label) row.turn.label = label;
      else delete row.turn.label;
      this.handlers.label(row.turn, label);
    } else if (id === "backspace") this.editing = graphemes(this.editing!).slice(0, -1).join("");
    else if (key.text !== undefined && !key.ctrl && !key.alt) this.editing += key.text;
    this.handlers.changed();
    return undefined;
  }

  render(width: number, height: number, theme: Theme): string[] {
    const help = this.editing !== undefined ? "type the label · enter save (empty clears) · esc cancel" : `↑↓ move · enter ${this.enter === "go" ? "go there" : "edit and branch"} · e edit · l label · ←→ fold · esc close`;
    const out = [`${paint(this.enter === "go" ? "Session tree" : "Branch from a turn", theme.fg("accent", "bold"))}  ${paint(truncateText(help, Math.max(0, width - 22)), theme.fg("dim"))}`];
    const listRows = Math.max(1, height - 2);
    if (this.selected < this.top) this.top = this.selected;
    if (this.selected >= this.top + listRows) this.top = this.selected - listRows + 1;
    this.top = Math.max(0, Math.min(this.top, Math.max(0, this.rows.length - listRows)));
    for (let index = this.top; index < Math.min(this.rows.length, this.top + listRows); index++) {
      const { turn, prefix, hidden } = this.rows[index]!;
      const mark = turn === this.tree.current ? "● " : turn.onPath ? "• " : "  ";
      const label = turn.label ? `[${sanitize(turn.label)}] ` : "";
      const fold = hidden > 0 ? ` ▸ ${hidden} more` : turn.children.length > 1 ? ` (${turn.children.length} branches)` : "";
      const line = truncateText(`${mark}${prefix}${clock(turn.timestamp)}  ${label}${sanitize(turn.text) || "(no text)"}${fold}`, width);
      if (index === this.selected) out.push(paint(padText(line, width), `${theme.selected()};${theme.fg("accent", "bold")}`));
      else out.push(paint(line, turn.onPath ? "" : theme.fg("muted")));
    }
    const footer = this.editing !== undefined ? `label: ${this.editing}` : `${this.rows.length} turns${this.tree.current ? "" : " · the leaf is before the first turn"}`;
    out.push(paint(truncateText(footer, width), theme.fg(this.editing !== undefined ? "accent" : "dim")));
    return out;
  }

  dispose(): void {}
}

function countBelow(turn: Turn): number {
  let count = 0;
  const stack = [...turn.children];
  while (stack.length > 0) {
    count++;
    stack.push(...stack.pop()!.children);
  }
  return count;
}

/** `14:05`, or `11-26 14:05` for another day. */
function clock(timestamp: string): string {
  const date = new Date(timestamp);
  if (Number.isNaN(date.getTime())) return "--:--";
  const pad = (n: number) => String(n).padStart(2, "0");
  const time = `${pad(date.getHours())}:${pad(date.getMinutes())}`;
  return date.toDateString() === new Date().toDateString() ? time : `${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${time}`;
}
