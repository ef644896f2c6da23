import { OmpError } from "../errors/omp-error.ts";
import type { BuiltinToolSpec } from "./builtin-specs.ts";
import { builtinToolSpecs, editModeSpecs, planModeSpec } from "./builtin-specs.ts" with { type: "macro" };
import type { EditMode } from "../config/settings-schema.ts";
import type { TodoStore } from "./todo.ts";
import type { Tool, ToolImplementation } from "./types.ts";
import { EXIT_USAGE } from "../errors/exit-codes.ts";

export interface BuiltinToolOptions {
  /** The session's todo list; a fresh one when absent. */
  todoStore?: TodoStore;
  /** A search provider is configured: only then is web_search offered (no dead tool in the request). */
  webSearch?: boolean;
}

/** Made when omp was bundled (see builtin-specs.ts), in the order the tools are offered to the model. */
const SPECS: BuiltinToolSpec[] = builtinToolSpecs();

/** Each built-in tool's module, imported on its first call. */
const LOADERS: Record<string, (options: BuiltinToolOptions) => Promise<ToolImplementation>> = {
  read: () => import("./read.ts").then((module) => module.readTool),
  write: () => import("./write.ts").then((module) => module.writeTool),
  edit: () => import("./edit.ts").then((module) => module.editTool),
  bash: () => import("./bash.ts").then((module) => module.bashTool),
  grep: () => import("./grep.ts").then((module) => module.grepTool),
  find: () => import("./find.ts").then((module) => module.findTool),
  ls: () => import("./ls.ts").then((module) => module.lsTool),
  job: () => import("./job.ts").then((module) => module.jobTool),
  web_fetch: () => import("./web-fetch.ts").then((module) => module.webFetchTool),
  web_search: () => import("./web-search.ts").then((module) => module.webSearchTool),
  lsp: () => import("./lsp.ts").then((module) => module.lspTool),
  ast_grep: () => import("./ast-grep.ts").then((module) => module.astGrepTool),
  ast_edit: () => import("./ast-edit.ts").then((module) => module.astEditTool),
  todo: ({ todoStore }) => import("./todo.ts").then((module) => module.createTodoTool(todoStore ?? module.createTodoStore())),
  ask: () => import("./ask.ts").then((module) => module.askTool),
  resolve: () => import("./resolve.ts").then((module) => module.resolveTool),
  checkpoint: () => import("./checkpoint.ts").then((module) => module.checkpointTool),
  rewind: () => import("./checkpoint.ts").then((module) => module.rewindTool),
};

const EDIT_SPECS = editModeSpecs();

/** The edit tool of each format but replace (the `edit` of LOADERS), imported on its first call. */
const EDIT_LOADERS: Record<keyof typeof EDIT_SPECS, () => Promise<ToolImplementation>> = {
  patch: () => import("./edit/tools.ts").then((module) => module.patchEditTool),
  hashline: () => import("./edit/tools.ts").then((module) => module.hashlineEditTool),
  apply_patch: () => import("./edit/tools.ts").then((module) => module.applyPatchTool),
};

/** `tools` with the built-in edit tool in the given format, in its place (nothing changes when edit is not among them). */
export function withEditMode(tools: Tool[], mode: EditMode): Tool[] {
  if (mode === "replace") return tools;
  const spec = EDIT_SPECS[mode];
  let implementation: Promise<ToolImplementation> | undefined;
  const tool: Tool = { ...spec, load: () => (implementation ??= EDIT_LOADERS[mode]()) };
  return tools.map((existing) => (existing.name === "edit" ? tool : existing));
}

/** Every built-in tool, in the order they are offered to the model; none of their code is loaded yet. */
export function builtinTools(options: BuiltinToolOptions = {}): Tool[] {
  return SPECS.filter((spec) => spec.name !== "web_search" || options.webSearch).map((spec) => {
    const load = LOADERS[spec.name]!;
    let implementation: Promise<ToolImplementation> | undefined;
    return { ...spec, load: () => (implementation ??= load(options)) };
  });
}

const PLAN_SPEC = planModeSpec();
let planImplementation: Promise<ToolImplementation> | undefined;

/** exit_plan_mode, which the session host offers only in plan mode. */
export const planModeTool: Tool = { ...PLAN_SPEC, load: () => (planImplementation ??= import("./exit-plan-mode.ts").then((module) => module.exitPlanModeTool)) };

export interface ToolSelection {
  /** `--tools a,b`: only these; entries may themselves be comma-separated. */
  only?: string[];
  /** `--no-tools`. */
  none?: boolean;
}

/** Applies `--tools` / `--no-tools` by name. Throws an OmpError (exit code 2) naming unknown tools and the valid names. */
export function selectTools(all: readonly Tool[], selection: ToolSelection): Tool[] {
  if (selection.none && selection.only) throw new OmpError("--tools and --no-tools cannot be used together.", { exitCode: EXIT_USAGE });
  if (selection.none) return [];
  if (!selection.only) return [...all];
  const wanted = new Set(selection.only.flatMap((entry) => entry.split(",")).map((name) => name.trim()).filter(Boolean));
  const valid = all.map((tool) => tool.name);
  if (wanted.size === 0) {
    throw new OmpError(`--tools needs at least one tool name (valid: ${valid.join(", ")}); use --no-tools for none.`, { exitCode: EXIT_USAGE });
  }
  const unknown = [...wanted].filter((name) => !valid.includes(name));
  if (unknown.length > 0) {
    const names = unknown.map((name) => JSON.stringify(name)).join(", ");
    throw new OmpError(`Unknown tool${unknown.length > 1 ? "s" : ""} ${names} in --tools. Valid tools: ${valid.join(", ")}.`, { exitCode: EXIT_USAGE });
  }
  // bash's jobs are read, written and killed through job: asking for bash brings it along.
  if (wanted.has("bash")) wanted.add("job");
  return all.filter((tool) => wanted.has(tool.name));
}
