import type { BashDetails } from "./bash.ts";
import type { EvalDetails } from "./eval.ts";
import type { EditDetails } from "./edit/engine.ts";
import type { FindDetails } from "./find.ts";
import type { GrepDetails } from "./grep.ts";
import type { LsDetails } from "./ls.ts";
import type { PageDetails } from "./read-details.ts";
import type { WebSearchDetails } from "./web-search.ts";
import { resolveToolPath } from "./paths.ts";
import { plural } from "../plural.ts";

/** How front ends group a tool call (ACP's ToolKind): icons, and whether it is shown as a diff or a terminal. */
export type ToolKind = "read" | "edit" | "delete" | "move" | "search" | "execute" | "think" | "fetch" | "other";

export interface ToolPresentation {
  title: string;
  kind: ToolKind;
  /** Files the call touches, for "follow the agent" in editors. */
  locations: { path: string; line?: number }[];
  /** A file change the call proposes or made: the whole file for write, each replacement for edit. */
  diffs?: { path: string; oldText: string | null; newText: string }[];
  /** The command, for calls that run one. */
  command?: string;
}

type Input = Record<string, unknown>;
type Presenter = (input: Input, cwd: string) => Omit<ToolPresentation, "locations"> & { locations?: ToolPresentation["locations"] };

const TITLE_CHARS = 120;

/**
 * How each tool presents itself, in one place for every front end (ACP now; the interactive
 * mode's blocks can read it too). A tool without a row shows as `other` with its name and the
 * one-line summary of its input. New tools add a row here.
 */
const PRESENTERS: Record<string, Presenter> = {
  read: (input, cwd) => {
    const offset = typeof input.offset === "number" ? input.offset : undefined;
    return { kind: "read", title: `Read ${str(input.path)}${offset ? ` (from line ${offset})` : ""}`, locations: at(input.path, cwd, offset) };
  },
  write: (input, cwd) => ({
    kind: "edit",
    title: `Write ${str(input.path)}`,
    diffs: [{ path: abs(input.path, cwd), oldText: null, newText: str(input.content) }],
  }),
  edit: (input, cwd) => {
    const path = abs(input.path, cwd);
    const edits = Array.isArray(input.edits) ? (input.edits as Input[]) : [];
    return { kind: "edit", title: `Edit ${str(input.path)}`, diffs: edits.map((edit) => ({ path, oldText: str(edit.oldText), newText: str(edit.newText) })) };
  },
  bash: (input) => ({ kind: "execute", title: oneLine(str(input.command)), command: str(input.command) }),
  eval: (input) => ({ kind: "execute", title: `eval ${evalCells(input)}`, command: cellsOf(input).map((cell) => str(cell.code)).join("\n\n") }),
  grep: (input, cwd) => ({ kind: "search", title: `grep ${oneLine(str(input.pattern))}${input.path ? ` in ${str(input.path)}` : ""}`, locations: input.path ? at(input.path, cwd) : [] }),
  find: (input, cwd) => ({ kind: "search", title: `find ${oneLine(str(input.pattern))}${input.path ? ` in ${str(input.path)}` : ""}`, locations: input.path ? at(input.path, cwd) : [] }),
  ls: (input, cwd) => ({ kind: "read", title: `List ${str(input.path) || "."}`, locations: at(input.path ?? ".", cwd) }),
  todo: () => ({ kind: "think", title: "Update the todo list" }),
  task: (input) => ({ kind: "think", title: `Subagent: ${oneLine(str(input.description) || str(input.subagent_type) || "task")}` }),
  skill: (input) => ({ kind: "read", title: `Skill ${str(input.name)}` }),
  apply_patch: (input, cwd) => {
    // The files the Codex envelope names, in order: "*** Update File: a.ts", "*** Add File: …", "*** Delete File: …".
    const files = [...str(input.input).matchAll(/^\*\*\* (Update|Add|Delete) File: (.+)$/gm)].map((match) => match[2]!.trim());
    return { kind: "edit", title: `Patch ${files.join(", ") || "files"}`, locations: files.map((file) => ({ path: abs(file, cwd) })) };
  },
  job: (input) => ({ kind: input.action === "kill" || input.action === "write" ? "execute" : "read", title: `Job ${input.id ?? ""} ${str(input.action)}`.replace("  ", " ") }),
  web_fetch: (input) => ({ kind: "fetch", title: `Fetch ${oneLine(str(input.url))}` }),
  web_search: (input) => ({ kind: "fetch", title: `Search the web: ${oneLine(str(input.query))}` }),
  browser: (input) => ({ kind: input.action === "run" ? "execute" : "fetch", title: `Browser ${str(input.action)} ${str(input.name ?? "main")}${input.url ? ` ${oneLine(str(input.url))}` : ""}` }),
  inspect_image: (input, cwd) => ({ kind: "read", title: `Inspect ${str(input.path)}: ${oneLine(str(input.question))}`, locations: at(input.path, cwd) }),
  lsp: (input, cwd) => ({ kind: input.apply ? "edit" : "search", title: `lsp ${str(input.op)}${input.path ? ` ${str(input.path)}` : ""}${input.symbol ? ` ${str(input.symbol)}` : ""}`, locations: input.path ? at(input.path, cwd, typeof input.line === "number" ? input.line : undefined) : [] }),
  ast_grep: (input, cwd) => ({ kind: "search", title: `ast-grep ${oneLine(str(input.pattern))}${input.path ? ` in ${str(input.path)}` : ""}`, locations: input.path ? at(input.path, cwd) : [] }),
  ask: (input) => ({ kind: "other", title: `Ask: ${oneLine(str((Array.isArray(input.questions) ? (input.questions[0] as Input | undefined) : undefined)?.question))}` }),
  exit_plan_mode: () => ({ kind: "think", title: "Present the plan for approval" }),
  retain: (input) => {
    const items = Array.isArray(input.items) ? (input.items as Input[]) : [];
    return { kind: "edit", title: `Remember ${plural(items.length, "memory", "memories")}: ${items.map((item) => oneLine(str(item.content))).join(" · ")}` };
  },
  recall: (input) => ({ kind: "search", title: `Recall: ${oneLine(str(input.query))}` }),
  reflect: (input) => ({ kind: "search", title: `Reflect: ${oneLine(str(input.query))}` }),
  search_tool_bm25: (input) => ({ kind: "search", title: `Find tools: ${oneLine(str(input.query))}` }),
  ssh: (input) => ({ kind: "execute", title: `ssh ${str(input.host)}: ${oneLine(str(input.command))}`, command: str(input.command) }),
  resolve: (input) => ({ kind: "edit", title: `Resolve ${str(input.path)} with ${str(input.pick)}` }),
  checkpoint: (input) => ({ kind: "think", title: `Checkpoint: ${oneLine(str(input.goal))}` }),
  rewind: () => ({ kind: "edit", title: "Rewind to the checkpoint" }),
  ast_edit: (input, cwd) => ({ kind: input.apply ? "edit" : "search", title: `ast-edit ${oneLine(str(input.pattern))} → ${oneLine(str(input.rewrite))}`, locations: input.path ? at(input.path, cwd) : [] }),
};

/**
 * How a terminal shows a finished call's result: `output` the tail of a command's output (streamed
 * while it runs), `diff` the change, `list` the first rows, `first-line` one line, `on-expand` nothing
 * until the user expands tools, `brief` the first few rows.
 */
export type ResultView = "output" | "diff" | "list" | "first-line" | "on-expand" | "brief";

/** `D`: the details the tool declares; each field may be missing from a session written by another version. */
interface TerminalRow<D = Input> {
  /** The call's main argument on one line, after the tool's name in a block's header. */
  argument?: (input: Input) => string;
  /** The result's details in a few words beside the header (counts, duration). */
  note?(details: Partial<D>): string | undefined;
  result?: ResultView;
}

const firstLine = (value: unknown) => (typeof value === "string" ? value.split("\n")[0]! : "");
const changed = (d: Partial<EditDetails>) => (typeof d.added === "number" ? `+${d.added} −${d.removed}` : undefined);
const command: TerminalRow<BashDetails> = {
  argument: (input) => firstLine(input.command),
  note: (d) => (typeof d.durationMs === "number" ? `${(d.durationMs / 1000).toFixed(1)}s${d.exitCode ? ` · exit ${d.exitCode}` : ""}` : undefined),
  result: "output",
};
const cellsOf = (input: Input) => (Array.isArray(input.cells) ? (input.cells as Input[]) : []);
/** An eval call's cells in a few words: `py: imports, js`. */
const evalCells = (input: Input) => cellsOf(input).map((cell) => `${str(cell.language)}${cell.title ? `: ${oneLine(str(cell.title))}` : ""}`).join(", ");
const search: Omit<TerminalRow, "note"> = {
  argument: (input) => (input.path ? `${firstLine(input.pattern)}  in ${firstLine(input.path)}` : firstLine(input.pattern)),
  result: "on-expand",
};
const paged: TerminalRow<PageDetails>["note"] = (d) => (typeof d.endLine === "number" ? `lines ${d.startLine}–${d.endLine} of ${d.totalLines}` : undefined);

/**
 * The same tools as a terminal shows them (the interactive mode's blocks): the header's argument
 * and note, and how the result is shown. A tool without a row shows its input as JSON and the
 * first rows of its result.
 */
const TERMINAL: Record<string, TerminalRow> & { grep: TerminalRow<GrepDetails>; find: TerminalRow<FindDetails>; ls: TerminalRow<LsDetails>; web_search: TerminalRow<WebSearchDetails> } = {
  bash: command,
  // The user's own `!cmd` in the interactive mode.
  shell: command,
  eval: { argument: evalCells, note: (d: Partial<EvalDetails>) => (Array.isArray(d.cells) ? `${(d.cells.reduce((sum, cell) => sum + cell.durationMs, 0) / 1000).toFixed(1)}s` : undefined), result: "output" },
  read: { argument: (input) => firstLine(input.path) + (typeof input.offset === "number" ? `:${input.offset}` : ""), note: paged, result: "on-expand" },
  write: { argument: (input) => firstLine(input.path), result: "first-line" },
  // The hashline edit names its file inside `input`.
  edit: { argument: (input) => firstLine(input.path) || (/^\[([^\]#]+)/m.exec(String(input.input ?? ""))?.[1] ?? ""), note: changed, result: "diff" },
  apply_patch: { argument: (input) => /^\*\*\* (?:Update|Add|Delete) File: (.+)$/m.exec(String(input.input ?? ""))?.[1] ?? "", note: changed, result: "diff" },
  grep: { ...search, note: (d) => (typeof d.totalMatches === "number" ? `${plural(d.totalMatches, "match", "matches")} in ${plural(Number(d.filesWithMatches), "file")}` : undefined) },
  find: { ...search, note: (d) => (typeof d.totalMatches === "number" ? plural(d.totalMatches, "path") : undefined) },
  ls: { argument: (input) => firstLine(input.path), note: (d) => (typeof d.files === "number" ? `${plural(Number(d.directories), "dir")}, ${plural(d.files, "file")}` : undefined), result: "on-expand" },
  todo: { argument: (input) => (Array.isArray(input.todos) ? plural(input.todos.length, "item") : ""), result: "list" },
  ask: { argument: (input) => (Array.isArray(input.questions) ? plural(input.questions.length, "question") : ""), result: "list" },
  exit_plan_mode: { argument: (input) => (Array.isArray(input.steps) ? plural(input.steps.length, "step") : ""), result: "list" },
  web_fetch: { argument: (input) => firstLine(input.url) + (typeof input.offset === "number" ? ` from line ${input.offset}` : ""), note: paged },
  browser: { argument: (input) => [firstLine(input.action), firstLine(input.name ?? "main"), firstLine(input.url ?? input.code)].filter(Boolean).join(" ") },
  inspect_image: { argument: (input) => `${firstLine(input.path)}: ${firstLine(input.question)}` },
  web_search: { argument: (input) => firstLine(input.query), note: (d) => (Array.isArray(d.results) ? `${plural(d.results.length, "result")} · ${String(d.provider)}` : undefined) },
  job: { argument: (input) => [firstLine(input.action), typeof input.id === "number" ? `#${input.id}` : "", firstLine(input.input)].filter(Boolean).join(" ") },
  skill: { argument: (input) => firstLine(input.name) },
  retain: { argument: (input) => (Array.isArray(input.items) ? plural(input.items.length, "memory", "memories") : ""), result: "first-line" },
  recall: { argument: (input) => firstLine(input.query), result: "list" },
  reflect: { argument: (input) => firstLine(input.query), result: "list" },
  ssh: { argument: (input) => `${firstLine(input.host)}: ${firstLine(input.command)}`, note: (d) => (typeof d.exitCode === "number" && d.exitCode !== 0 ? `exit ${d.exitCode}` : undefined), result: "output" },
  resolve: { argument: (input) => `${firstLine(input.path)} ${firstLine(input.pick)}`, note: changed },
  checkpoint: { argument: (input) => firstLine(input.goal), result: "first-line" },
  rewind: { argument: (input) => firstLine(input.report), result: "brief" },
  task: { argument: (input) => [firstLine(input.subagent_type), firstLine(input.description)].filter(Boolean).join(": ") },
  search_tool_bm25: {
    argument: (input) => firstLine(input.query),
    note: (d) => (Array.isArray(d.activated_tools) ? (d.activated_tools.length > 0 ? `loaded ${d.activated_tools.join(", ")}` : "nothing found") : undefined),
    result: "on-expand",
  },
};

function terminalRow(toolName: string): TerminalRow {
  return TERMINAL[toolName] ?? {};
}

/** The call's main argument for a terminal's block header: the command, the path, the pattern. */
export function terminalArgument(toolName: string, input: unknown): string {
  const record = input !== null && typeof input === "object" ? (input as Input) : {};
  const argument = terminalRow(toolName).argument;
  if (argument) {
    try {
      return argument(record);
    } catch {
      // The model's malformed arguments: shown as they came.
    }
  }
  const json = JSON.stringify(record) ?? "";
  return json === "{}" ? "" : json;
}

/** The call's main argument on one line of at most 120 characters, for print mode's progress lines. */
export function progressArgument(toolName: string, input: unknown): string {
  return oneLine(terminalArgument(toolName, input));
}

/** A finished call's details in a few words, for beside a terminal block's header; "" when there is nothing to say. */
export function terminalNote(toolName: string, details: unknown): string {
  if (details === null || typeof details !== "object") return "";
  return terminalRow(toolName).note?.(details as Input) ?? "";
}

/** How a terminal shows the call's result. */
export function resultView(toolName: string): ResultView {
  return terminalRow(toolName).result ?? "brief";
}

/** The presentation of a call of `toolName` with `input`, for a session in `cwd`. */
export function presentTool(toolName: string, input: unknown, cwd: string): ToolPresentation {
  const record = input !== null && typeof input === "object" ? (input as Input) : {};
  const presenter = PRESENTERS[toolName];
  if (presenter) {
    try {
      const shown = presenter(record, cwd);
      return { ...shown, locations: shown.locations ?? (shown.diffs ?? []).map((diff) => ({ path: diff.path })).slice(0, 1) };
    } catch {
      // Arguments of the wrong shape (the model's mistake, reported by the tool): the generic row.
    }
  }
  const mcp = /^mcp__(.+?)__(.+)$/.exec(toolName);
  const name = mcp ? `${mcp[1]}: ${mcp[2]}` : toolName;
  const summary = oneLine(JSON.stringify(record) ?? "");
  return { kind: "other", title: summary && summary !== "{}" ? cut(`${name} ${summary}`) : name, locations: [] };
}

function str(value: unknown): string {
  return typeof value === "string" ? value : "";
}

function abs(path: unknown, cwd: string): string {
  return resolveToolPath(cwd, str(path) || ".");
}

function at(path: unknown, cwd: string, line?: number): ToolPresentation["locations"] {
  return [{ path: abs(path, cwd), ...(line ? { line } : {}) }];
}

function oneLine(text: string): string {
  return cut(text.replace(/\s*\n\s*/g, " ⏎ "));
}

function cut(text: string): string {
  return text.length > TITLE_CHARS ? `${text.slice(0, TITLE_CHARS)}…` : text;
}
