import type { TextContent, ToolResultMessage } from "../../core/ai/messages.ts";
import { SPINNER, type View } from "./blocks.ts";
import { diffLine } from "./highlight.ts";
import type { Block } from "./transcript.ts";
import { fitSpans, paint, sanitize, spansToString, truncateText, visibleWidth } from "./text.ts";
import type { Theme } from "./theme.ts";

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
    const summary = argumentSummary(this.name, this.args);
    const note = this.headerNote();
    const room = width - 2 - visibleWidth(this.name) - 1 - visibleWidth(note) - 1;
    const header = `${mark} ${title} ${paint(truncateText(summary, Math.max(0, room)), theme.fg("muted"))}${note ? ` ${paint(note, theme.fg("dim"))}` : ""}`;
    const body = this.body(width - 4);
    const rows = ["", header];
    body.forEach((line, i) => rows.push((i === 0 ? paint("  ⎿ ", theme.fg("dim")) : "    ") + line));
    return rows;
  }

  /** Counts next to the header: +3 −1 for an edit, matches for a search. */
  private headerNote(): string {
    const d = this.details as Record<string, unknown> | undefined;
    if (!d || !this.done) return "";
    if ((this.name === "edit" || this.name === "apply_patch") && typeof d.added === "number") return `+${d.added} −${d.removed}`;
    if (this.name === "grep" && typeof d.totalMatches === "number") return `${plural(d.totalMatches, "match", "matches")} in ${plural(Number(d.filesWithMatches), "file")}`;
    if (this.name === "find" && typeof d.totalMatches === "number") return plural(d.totalMatches, "path");
    if (this.name === "ls" && typeof d.files === "number") return `${plural(Number(d.directories), "dir")}, ${plural(d.files, "file")}`;
    if ((this.name === "read" || this.name === "web_fetch") && typeof d.endLine === "number") return `lines ${d.startLine}–${d.endLine} of ${d.totalLines}`;
    if (this.name === "web_search" && Array.isArray(d.results)) return `${plural(d.results.length, "result")} · ${String(d.provider)}`;
    if ((this.name === "bash" || this.name === "shell") && typeof d.durationMs === "number") return `${(d.durationMs / 1000).toFixed(1)}s${d.exitCode ? ` · exit ${d.exitCode}` : ""}`;
    return "";
  }

  private body(width: number): string[] {
    const { theme } = this.view;
    const expanded = this.view.expandTools;
    const tail = expanded ? TAIL.expanded : TAIL.collapsed;
    if (this.state === "preparing" || this.state === "waiting") return [];
    const shell = this.name === "bash" || this.name === "shell";
    if (this.state === "running") return shell ? tailRows(this.output, tail, width, theme.fg("muted"), theme) : [];
    const d = this.details as Record<string, unknown> | undefined;
    // A failed command's reason is at its end; other tools say what went wrong first.
    if (this.state === "error") return tailRows(this.result, expanded ? TAIL.expanded : shell ? tail : 3, width, theme.fg("error"), theme, shell ? "tail" : "head");
    if ((this.name === "edit" || this.name === "apply_patch") && typeof d?.diff === "string") {
      const lines = d.diff.split("\n").filter((line) => !line.startsWith("---") && !line.startsWith("+++") && line !== "");
      const limit = expanded ? DIFF_ROWS.expanded : DIFF_ROWS.collapsed;
      const rows = lines.slice(0, limit).map((line) => spansToString(fitSpans(diffLine(sanitize(line), theme), width)));
      if (lines.length > limit) rows.push(paint(`… ${lines.length - limit} more lines (ctrl+o to expand)`, theme.fg("dim")));
      return rows;
    }
    if (shell) return tailRows(this.result, tail, width, theme.fg("muted"), theme);
    if (this.name === "todo") return tailRows(this.result, expanded ? TAIL.expanded : 12, width, "", theme, "head");
    if (this.name === "write") return [paint(truncateText(sanitize(this.result.split("\n")[0] ?? ""), width), theme.fg("muted"))];
    if (this.name === "grep" || this.name === "find" || this.name === "ls") {
      return expanded ? tailRows(this.result, TAIL.expanded, width, theme.fg("muted"), theme, "head") : [];
    }
    if (this.name === "read") return expanded ? tailRows(this.result, TAIL.expanded, width, theme.fg("muted"), theme, "head") : [];
    return tailRows(this.result, expanded ? TAIL.expanded : 3, width, theme.fg("muted"), theme, "head");
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

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** The argument that says what a call does: the command, the path, the pattern. */
function argumentSummary(name: string, args: Record<string, unknown>): string {
  const str = (key: string) => (typeof args[key] === "string" ? sanitize((args[key] as string).split("\n")[0]!) : undefined);
  switch (name) {
    case "bash":
    case "shell":
      return str("command") ?? "";
    case "read": {
      const path = str("path") ?? "";
      const offset = typeof args.offset === "number" ? `:${args.offset}` : "";
      return path + offset;
    }
    case "write":
    case "ls":
      return str("path") ?? "";
    // The hashline edit and apply_patch name their files inside `input`.
    case "edit":
      return str("path") ?? sanitize(/^\[([^\]#]+)/m.exec(String(args.input ?? ""))?.[1] ?? "");
    case "apply_patch":
      return sanitize(/^\*\*\* (?:Update|Add|Delete) File: (.+)$/m.exec(String(args.input ?? ""))?.[1] ?? "");
    case "grep":
    case "find": {
      const pattern = str("pattern") ?? "";
      const path = str("path");
      return path ? `${pattern}  in ${path}` : pattern;
    }
    case "todo":
      return Array.isArray(args.todos) ? plural(args.todos.length, "item") : "";
    case "web_fetch":
      return (str("url") ?? "") + (typeof args.offset === "number" ? ` from line ${args.offset}` : "");
    case "web_search":
      return str("query") ?? "";
  }
  const json = JSON.stringify(args) ?? "";
  return sanitize(json === "{}" ? "" : json);
}
