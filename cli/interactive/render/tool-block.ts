import type { TextContent, ToolResultMessage } from "../../../core/ai/messages.ts";
import { resultView, terminalArgument, terminalNote } from "../../../core/tools/presentation.ts";
import { SPINNER, type View } from "./blocks.ts";
import { diffLine } from "./highlight.ts";
import { numberedChangeRows } from "./numbered-diff.ts";
import type { ChangeSummary } from "../../../core/tools/change-preview.ts";
import type { Block } from "./transcript.ts";
import { fitSpans, paint, spansToString, truncateText, visibleWidth } from "./text.ts";
import { sanitize } from "../../shared/terminal-text.ts";
import type { Theme } from "./theme.ts";
import { plural } from "../../../core/plural.ts";

type State = "preparing" | "waiting" | "running" | "done" | "error";

/** Tail rows of output shown while collapsed and expanded (Ctrl+O). */
const TAIL = { collapsed: 5, expanded: 40 };
const DIFF_ROWS = { collapsed: 14, expanded: 400 };

/**
 * One tool call as a compact block: a status mark, the tool and its main argument, and a short
 * result: a coloured diff for edits, the tail of bash output, counts for searches.
 */
export class ToolBlock implements Block {
  private state: State = "preparing";
  private args: Record<string, unknown> = {};
  private output = "";
  private result = "";
  private details: unknown;
  private version = 0;
  private cache: { key: string; rows: string[] } | undefined;

  constructor(
    private readonly view: View,
    readonly id: string,
    private name: string,
  ) {}

  get done(): boolean {
    return this.state === "done" || this.state === "error";
  }

  /** The model finished writing the call. */
  called(name: string, args: Record<string, unknown>): void {
    this.name = name;
    this.args = args;
    if (this.state === "preparing") this.state = "waiting";
    this.version++;
  }

  started(args: Record<string, unknown>): void {
    this.args = args;
    this.state = "running";
    this.version++;
  }

  /** A piece of streamed output (bash). */
  progress(chunk: string): void {
    this.output += chunk;
    // Only the tail is ever shown; keep the buffer bounded for commands that print a lot.
    if (this.output.length > 64_000) this.output = this.output.slice(-32_000);
    this.version++;
  }

  finished(message: ToolResultMessage): void {
    this.state = message.isError ? "error" : "done";
    this.result = message.content
      .filter((c): c is TextContent => c.type === "text")
      .map((c) => c.text)
      .join("\n");
    this.details = message.details;
    this.version++;
  }

  /** The call never ran: the turn was aborted before its result. */
  cancel(): void {
    if (this.done) return;
    this.state = "error";
    this.result = "Not run: the turn was interrupted.";
    this.version++;
  }

  stableRows(width: number): number {
    return this.done ? this.render(width).length : 0;
  }

  render(width: number): string[] {
    const spinning = !this.done;
    const key = `${width}|${this.version}|${this.view.expandTools}|${spinning ? this.view.tick : ""}|${this.view.theme.appearance}`;
    if (this.cache?.key !== key) this.cache = { key, rows: this.draw(width) };
    return this.cache.rows;
  }

  private draw(width: number): string[] {
    const { theme } = this.view;
    const mark =
      this.state === "done"
        ? paint("✓", theme.fg("success", "bold"))
        : this.state === "error"
          ? paint("✗", theme.fg("error", "bold"))
          : paint(SPINNER[this.view.tick % SPINNER.length]!, theme.fg("accent"));
    const title = paint(this.name, theme.fg(null, "bold"));
    const summary = sanitize(terminalArgument(this.name, this.args).split("\n")[0]!);
    const note = this.headerNote();
    const room = width - 2 - visibleWidth(this.name) - 1 - visibleWidth(note) - 1;
    const header = `${mark} ${title} ${paint(truncateText(summary, Math.max(0, room)), theme.fg("muted"))}${note ? ` ${paint(note, theme.fg("dim"))}` : ""}`;
    const body = this.body(width - 4);
    const rows = ["", header];
    body.forEach((line, i) => rows.push((i === 0 ? paint("  ⎿ ", theme.fg("dim")) : "    ") + line));
    return rows;
  }

  /** Counts next to the header: +3 −1 for an edit, matches for a search (the tool's row in core/tools/presentation.ts). */
  private headerNote(): string {
    return this.done ? terminalNote(this.name, this.details) : "";
  }

  private body(width: number): string[] {
    const { theme } = this.view;
    const expanded = this.view.expandTools;
    const tail = expanded ? TAIL.expanded : TAIL.collapsed;
    if (this.state === "preparing" || this.state === "waiting") return [];
    // How the result shows is the tool's own say (core/tools/presentation.ts), not a switch on its name here.
    const view = resultView(this.name);
    const output = view === "output";
    if (this.state === "running") return output ? tailRows(this.output, tail, width, theme.fg("muted"), theme) : [];
    const d = this.details as Record<string, unknown> | undefined;
    // A denied change shows what was turned down.
    if (this.state === "error" && Array.isArray(d?.changes)) return this.deniedRows(d.changes as ChangeSummary[], width);
    // A failed command's reason is at its end; other tools say what went wrong first.
    if (this.state === "error") return tailRows(this.result, expanded ? TAIL.expanded : output ? tail : 3, width, theme.fg("error"), theme, output ? "tail" : "head");
    switch (view) {
      case "diff":
        if (typeof d?.diff === "string") return this.diffRows(d.diff, width);
        break;
      case "output":
        return tailRows(this.result, tail, width, theme.fg("muted"), theme);
      case "list":
        return tailRows(this.result, expanded ? TAIL.expanded : 12, width, "", theme, "head");
      case "first-line":
        return [paint(truncateText(sanitize(this.result.split("\n")[0] ?? ""), width), theme.fg("muted"))];
      case "on-expand":
        return expanded ? tailRows(this.result, TAIL.expanded, width, theme.fg("muted"), theme, "head") : [];
    }
    return tailRows(this.result, expanded ? TAIL.expanded : 3, width, theme.fg("muted"), theme, "head");
  }

  private deniedRows(changes: ChangeSummary[], width: number): string[] {
    const { theme } = this.view;
    const lines = numberedChangeRows(changes, width, theme);
    const limit = this.view.expandTools ? DIFF_ROWS.expanded : DIFF_ROWS.collapsed;
    const rows = [paint(truncateText(sanitize(this.result.split("\n")[0] ?? ""), width), theme.fg("error")), ...lines.slice(0, limit)];
    if (lines.length > limit) rows.push(paint(`… ${lines.length - limit} more lines (ctrl+o to expand)`, theme.fg("dim")));
    return rows;
  }

  private diffRows(diff: string, width: number): string[] {
    const { theme } = this.view;
    const lines = diff.split("\n").filter((line) => !line.startsWith("---") && !line.startsWith("+++") && line !== "");
    const limit = this.view.expandTools ? DIFF_ROWS.expanded : DIFF_ROWS.collapsed;
    const rows = lines.slice(0, limit).map((line) => spansToString(fitSpans(diffLine(sanitize(line), theme), width)));
    if (lines.length > limit) rows.push(paint(`… ${lines.length - limit} more lines (ctrl+o to expand)`, theme.fg("dim")));
    return rows;
  }
}

/** The last (or first) `count` lines of `text`, each cut to the width, with a count of the rest. */
function tailRows(text: string, count: number, width: number, style: string, theme: Theme, end: "head" | "tail" = "tail"): string[] {
  const lines = text.replace(/\n+$/, "").split("\n");
  if (lines.length === 1 && lines[0] === "") return [];
  const shown = end === "tail" ? lines.slice(-count) : lines.slice(0, count);
  const rows = shown.map((line) => paint(truncateText(sanitize(line), width), style));
  const hidden = lines.length - shown.length;
  if (hidden > 0) {
    const note = paint(`… ${plural(hidden, "more line")} (ctrl+o to expand)`, theme.fg("dim"));
    if (end === "tail") rows.unshift(note);
    else rows.push(note);
  }
  return rows;
}

