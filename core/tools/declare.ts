import type { SshHost } from "../ssh/hosts.ts";
import type { TodoStore } from "./todo.ts";
import type { LoadMode, ToolDefinition, ToolEffect } from "./types.ts";

/**
 * A tool declared in one place: how front ends show its calls, which of its inputs are paths and
 * what it does to them, what Claude Code calls it, the other names rules may use, when omp offers
 * it and where its code is. Every per-tool table (the registry's loaders, presentation, path scope,
 * Claude names for hooks and permission rules) is read from these; the code itself is imported on
 * the tool's first call, so a declaration costs start-up almost nothing (no zod, no tool module).
 */
export interface ToolDeclaration {
  name: string;
  /** How an editor (ACP) shows a call: title, kind, the files it touches, its diff or command. */
  editor?: EditorPresenter;
  /** How a terminal shows a call: its header's argument and note, and its result. */
  terminal?: TerminalPresenter;
  /**
   * The paths a call names and whether it reads or writes them (a write is what makes a tool
   * "write files"), checked against the project's bounds and the sandbox's path policy. A path
   * left undefined is the working directory. Absent: the tool names no path.
   */
  paths?: (input: ToolInput) => NamedPath[];
  /** Claude Code's names for the tool, for hooks, agent definitions and permission rules. */
  claude?: ClaudeNaming;
  /** Other tools' names for the same thing (other agents', the original omp's) that Claude's permission rules also cover. */
  aliases?: readonly string[];
  /** The tool's code (a built-in tool): its input schema and what runs it, imported on the first call. */
  load?: (options: BuiltinToolOptions) => Promise<ToolDefinition>;
  /** Whether omp offers the built-in tool with these options; absent: always. */
  offered?: (options: BuiltinToolOptions) => boolean;
  /** The description as offered with these options (the ssh tool names its hosts). */
  describe?: (description: string, options: BuiltinToolOptions) => string;
}

/**
 * What the model and the approval gate know of a tool omp has the code of, which its code takes
 * from here (see {@link declared}): the code keeps only the input's zod schema and what runs it.
 */
export interface ToolAbout {
  /** Shown to the model; says when to use the tool and its limits. */
  description: string;
  /** What the tool may do, for approval modes (see ToolEffect). */
  effect: ToolEffect;
  /** `discoverable`: kept out of the first request, found with search_tool_bm25 (see LoadMode). */
  loadMode?: LoadMode;
}

/** A tool omp has the code of: the built-in tools, and those offered in another's place or by another part. */
export interface CodedToolDeclaration extends ToolDeclaration, ToolAbout {
  /**
   * Its place among the built-in tools offered to the model, lowest first (the request's bytes and
   * the provider's prompt cache follow this order: add between, never renumber). Absent: a tool
   * offered in another's place or by another part (apply_patch, exit_plan_mode).
   */
  order?: number;
  load: (options: BuiltinToolOptions) => Promise<ToolDefinition>;
}

/** The name, description, effect and load mode a tool's code takes from its declaration. */
export function declared({ name, description, effect, loadMode }: ToolAbout & { name: string }): Pick<ToolDefinition, "name" | "description" | "effect" | "loadMode"> {
  return { name, description, effect, ...(loadMode ? { loadMode } : {}) };
}

/** What decides which built-in tools are offered and how some are made. */
export interface BuiltinToolOptions {
  /** The session's todo list; a fresh one when absent. */
  todoStore?: TodoStore;
  /** A search provider is configured: only then is web_search offered (no dead tool in the request). */
  webSearch?: boolean;
  /** `memory.backend` is on: only then are retain, recall and reflect offered. */
  memory?: boolean;
  /** Chromium is installed: only then is browser offered. */
  browser?: boolean;
  /** The ssh tool's hosts (core/ssh/hosts.ts): it is offered only when there are some, and names them. */
  sshHosts?: readonly SshHost[];
  /** GitHub is set up (a token in the environment, GH_HOST/GITHUB_API_URL, or gh installed): only then is the github tool offered. */
  github?: boolean;
}

/** A tool call's arguments as the model sent them: any shape, so every reader checks its types. */
export type ToolInput = Record<string, unknown>;

export interface NamedPath {
  path: string | undefined;
  access: "read" | "write";
}

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

/** Locations may be left out when they are the diffs' first file. */
export type EditorPresenter = (input: ToolInput, cwd: string) => Omit<ToolPresentation, "locations"> & { locations?: ToolPresentation["locations"] };

/**
 * How a terminal shows a finished call's result: `output` the tail of a command's output (streamed
 * while it runs), `diff` the change, `list` the first rows, `first-line` one line, `on-expand` nothing
 * until the user expands tools, `brief` the first few rows.
 */
export type ResultView = "output" | "diff" | "list" | "first-line" | "on-expand" | "brief";

/** `D`: the details the tool declares; each field may be missing from a session written by another version. */
export interface TerminalPresenter<D = ToolInput> {
  /** The call's main argument on one line, after the tool's name in a block's header. */
  argument?: (input: ToolInput) => string;
  /** The result's details in a few words beside the header (counts, duration). */
  note?(details: Partial<D>): string | undefined;
  result?: ResultView;
}

export interface ClaudeNaming {
  /** The names a hook matcher or an agent definition's tools may use; hooks are sent the first. */
  names: readonly string[];
  /** Further Claude names whose permission rules cover this tool (Read rules cover every tool that reads files). */
  rules?: readonly string[];
  /** Input fields renamed omp → Claude for hooks (the reverse is derived). */
  fields?: Readonly<Record<string, string>>;
  /** Fields, after renaming, that Claude's tools give as absolute paths; `file_path` always is. */
  absolute?: readonly string[];
  /** The input in Claude's shape where renaming fields is not enough (after the renames and absolute paths). */
  toClaude?: (input: ToolInput, renamed: ToolInput) => { toolName?: string; toolInput: ToolInput };
  /** A hook's `updatedInput` back in omp's shape where renaming fields is not enough (after the reverse renames). */
  fromClaude?: (input: ToolInput) => ToolInput;
  /** Whether a rule's specifier (`Tool(specifier)`) covers this call, for tools whose specifier is not a path or a domain. */
  specifier?: (specifier: string, input: ToolInput) => boolean;
}

/** A tool whose input names one path under `key` (undefined: the working directory); `apply`: written only with `apply: true`. */
export function pathAt(key: string, access: "read" | "write" | "apply"): (input: ToolInput) => NamedPath[] {
  return (input) => {
    const given = input[key];
    if (given !== undefined && typeof given !== "string") return [];
    return [{ path: given, access: access === "apply" ? (input.apply === true ? "write" : "read") : access }];
  };
}
