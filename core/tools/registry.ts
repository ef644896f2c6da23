import { OmpError } from "../errors/omp-error.ts";
import type { BuiltinToolSpec } from "./builtin-specs.ts";
import { builtinToolSpecs, editModeSpecs, planModeSpec } from "./builtin-specs.ts" with { type: "macro" };
import type { EditMode } from "../config/settings-schema.ts";
import type { TodoStore } from "./todo.ts";
import type { SshHost } from "../ssh/hosts.ts";
import { hostTarget } from "../ssh/options.ts";
import type { Tool, ToolImplementation } from "./types.ts";
import { EXIT_USAGE } from "../errors/exit-codes.ts";
import { named } from "./discovery/policy.ts";

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

const MEMORY_TOOLS = new Set(["retain", "recall", "reflect"]);

/** Made when omp was bundled (see builtin-specs.ts), in the order the tools are offered to the model. */
const SPECS: BuiltinToolSpec[] = builtinToolSpecs();

/** Each built-in tool's module, imported on its first call. */
const LOADERS: Record<string, (options: BuiltinToolOptions) => Promise<ToolImplementation>> = {
  read: () => import("./read.ts").then((module) => module.readTool),
  write: () => import("./write.ts").then((module) => module.writeTool),
  edit: () => import("./edit.ts").then((module) => module.editTool),
  bash: () => import("./bash.ts").then((module) => module.bashTool),
  eval: () => import("./eval.ts").then((module) => module.evalTool),
  grep: () => import("./grep.ts").then((module) => module.grepTool),
  find: () => import("./find.ts").then((module) => module.findTool),
  ls: () => import("./ls.ts").then((module) => module.lsTool),
  job: () => import("./job.ts").then((module) => module.jobTool),
  web_fetch: () => import("./web-fetch.ts").then((module) => module.webFetchTool),
  web_search: () => import("./web-search.ts").then((module) => module.webSearchTool),
  browser: () => import("./browser.ts").then((module) => module.browserTool),
  inspect_image: () => import("./inspect-image.ts").then((module) => module.inspectImageTool),
  lsp: () => import("./lsp.ts").then((module) => module.lspTool),
  ast_grep: () => import("./ast-grep.ts").then((module) => module.astGrepTool),
  ast_edit: () => import("./ast-edit.ts").then((module) => module.astEditTool),
  todo: ({ todoStore }) => import("./todo.ts").then((module) => module.createTodoTool(todoStore ?? module.createTodoStore())),
  ask: () => import("./ask.ts").then((module) => module.askTool),
  retain: () => import("./memory.ts").then((module) => module.retainTool),
  recall: () => import("./memory.ts").then((module) => module.recallTool),
  reflect: () => import("./memory.ts").then((module) => module.reflectTool),
  github: () => import("./github.ts").then((module) => module.githubTool),
  ssh: ({ sshHosts }) => import("./ssh.ts").then((module) => module.createSshTool(sshHosts ?? [])),
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
  const sshHosts = options.sshHosts ?? [];
  return SPECS.filter((spec) => (spec.name !== "web_search" || options.webSearch) && (!MEMORY_TOOLS.has(spec.name) || options.memory) && (spec.name !== "browser" || options.browser) && (spec.name !== "ssh" || sshHosts.length > 0) && (spec.name !== "github" || options.github)).map((spec) => {
    const load = LOADERS[spec.name]!;
    let implementation: Promise<ToolImplementation> | undefined;
    const described = spec.name === "ssh" ? { ...spec, description: `${spec.description}\nAvailable hosts: ${sshHosts.map(hostLine).join("; ")}` } : spec;
    return { ...described, load: () => (implementation ??= load(options)) };
  });
}

/** A host as the ssh tool's description names it (the address as ssh.json gives it; ~/.ssh/config may say more). */
function hostLine(host: SshHost): string {
  return `${host.name} (${hostTarget(host)}${host.description ? `, ${host.description.replace(/\s+/g, " ").slice(0, 80)}` : ""})`;
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

/** Applies `--tools` / `--no-tools` by name (the tools named are sent as they are, none deferred). Throws an OmpError (exit code 2) naming unknown tools and the valid names. */
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
  // Named on the command line: sent, never deferred to search_tool_bm25.
  return all.filter((tool) => wanted.has(tool.name)).map(named);
}
