import { OmpError } from "../errors/omp-error.ts";
import type { BuiltinToolSpec } from "./builtin-specs.ts";
import { builtinToolSpecs, editModeSpecs, planModeSpec } from "./builtin-specs.ts" with { type: "macro" };
import type { EditMode } from "../config/settings-schema.ts";
import type { BuiltinToolOptions, ToolDeclaration } from "./declare.ts";
import { applyPatch, declarationOf, editModes, exitPlanMode } from "./declarations/index.ts";
import type { Tool, ToolImplementation } from "./types.ts";
import { EXIT_USAGE } from "../errors/exit-codes.ts";
import { named } from "./discovery/policy.ts";

export type { BuiltinToolOptions } from "./declare.ts";

/** Made when omp was bundled (see builtin-specs.ts), in the order the tools are offered to the model. */
const SPECS: BuiltinToolSpec[] = builtinToolSpecs();

const EDIT_SPECS = editModeSpecs();

/** The edit tool of each format but replace (the `edit` declaration's own code), imported on its first call. */
const EDIT_LOADERS: Record<keyof typeof EDIT_SPECS, () => Promise<ToolImplementation>> = { patch: editModes.patch.load, hashline: editModes.hashline.load, apply_patch: () => applyPatch.load({}) };

/** `tools` with the built-in edit tool in the given format, in its place (nothing changes when edit is not among them). */
export function withEditMode(tools: Tool[], mode: EditMode): Tool[] {
  if (mode === "replace") return tools;
  const spec = EDIT_SPECS[mode];
  let implementation: Promise<ToolImplementation> | undefined;
  const tool: Tool = { ...spec, load: () => (implementation ??= EDIT_LOADERS[mode]()) };
  return tools.map((existing) => (existing.name === "edit" ? tool : existing));
}

/** Every built-in tool its declaration offers with these options, in the order they are offered to the model; none of their code is loaded yet. */
export function builtinTools(options: BuiltinToolOptions = {}): Tool[] {
  return offeredTools(SPECS, options);
}

/** Of these built-in tools' specs, in order, those their declarations offer with these options, described as they say. */
export function offeredTools(specs: readonly BuiltinToolSpec[], options: BuiltinToolOptions, declared: (name: string) => ToolDeclaration | undefined = declarationOf): Tool[] {
  return specs.flatMap((spec) => {
    const declaration = declared(spec.name)!;
    if (declaration.offered && !declaration.offered(options)) return [];
    let implementation: Promise<ToolImplementation> | undefined;
    const description = declaration.describe ? declaration.describe(spec.description, options) : spec.description;
    return [{ ...spec, description, load: () => (implementation ??= declaration.load!(options)) }];
  });
}

const PLAN_SPEC = planModeSpec();
let planImplementation: Promise<ToolImplementation> | undefined;

/** exit_plan_mode, which the session host offers only in plan mode. */
export const planModeTool: Tool = { ...PLAN_SPEC, load: () => (planImplementation ??= exitPlanMode.load!({})) };

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
