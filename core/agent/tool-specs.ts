import type { ToolSpec } from "../ai/stream.ts";
import { toToolSpec } from "../tools/registry.ts";
import type { Tool } from "../tools/types.ts";
import { builtinToolSpecs } from "./builtin-tool-specs.ts" with { type: "macro" };

/** The built-in tools' specs, computed when omp was bundled (see builtin-tool-specs.ts). */
const BUILTIN: Record<string, ToolSpec> = builtinToolSpecs();

const specs = new WeakMap<Tool, ToolSpec>();

/**
 * A tool as providers see it, converted once: the zod → JSON Schema conversion costs a few
 * milliseconds for the built-in set, too much for start-up or for every request. A built-in tool
 * uses the spec made at bundle time (its name and description must match, so a tool replaced at
 * run time is converted afresh).
 */
export function toolSpec(tool: Tool): ToolSpec {
  let spec = specs.get(tool);
  if (!spec) {
    const built = BUILTIN[tool.name];
    spec = built && built.description === tool.description ? built : toToolSpec(tool);
    specs.set(tool, spec);
  }
  return spec;
}
