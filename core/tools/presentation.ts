import { resolveToolPath } from "./paths.ts";

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
  lsp: (input, cwd) => ({ kind: input.apply ? "edit" : "search", title: `lsp ${str(input.op)}${input.path ? ` ${str(input.path)}` : ""}${input.symbol ? ` ${str(input.symbol)}` : ""}`, locations: input.path ? at(input.path, cwd, typeof input.line === "number" ? input.line : undefined) : [] }),
  ast_grep: (input, cwd) => ({ kind: "search", title: `ast-grep ${oneLine(str(input.pattern))}${input.path ? ` in ${str(input.path)}` : ""}`, locations: input.path ? at(input.path, cwd) : [] }),
  ast_edit: (input, cwd) => ({ kind: input.apply ? "edit" : "search", title: `ast-edit ${oneLine(str(input.pattern))} → ${oneLine(str(input.rewrite))}`, locations: input.path ? at(input.path, cwd) : [] }),
};

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
