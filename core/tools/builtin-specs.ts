// Imported with { type: "macro" } by registry.ts: runs when omp is bundled, so the compiled binary
// carries the built-in tools' names, effects and JSON Schemas, and neither zod nor the tools' code
// is needed before their first call.
import { defineTool } from "./define.ts";
import type { ToolDeclaration } from "./declare.ts";
import { applyPatch, BUILTIN_TOOLS, edit, editModes, exitPlanMode } from "./declarations/index.ts";
import type { Tool, ToolDefinition } from "./types.ts";

async function loaded(declaration: ToolDeclaration, load = declaration.load): Promise<ToolDefinition> {
  if (!load) throw new Error(`Tool ${declaration.name}: a built-in tool's declaration needs load`);
  const definition = await load({});
  if (definition.name !== declaration.name) throw new Error(`Tool ${declaration.name}: its load gives a tool named ${definition.name}`);
  return definition;
}

/** These built-in tools' code, each checked to be the tool its declaration names. */
export function definitionsOf(declarations: readonly ToolDeclaration[]): Promise<ToolDefinition[]> {
  return Promise.all(declarations.map((declaration) => loaded(declaration)));
}

const BUILTIN = await definitionsOf(BUILTIN_TOOLS);
const EDIT_MODES = { patch: await loaded(edit, editModes.patch.load), hashline: await loaded(edit, editModes.hashline.load), apply_patch: await loaded(applyPatch) };
const PLAN = await loaded(exitPlanMode);

/**
 * Every built-in tool's definition (its code), in the order they are offered to the model. A rarely
 * needed tool is kept out of the first request by `loadMode: "discoverable"` on its declaration
 * (see LoadMode in types.ts): the model finds it with search_tool_bm25.
 */
export function builtinToolDefinitions(): ToolDefinition[] {
  return [...BUILTIN];
}

export type BuiltinToolSpec = Omit<Tool, "load">;

/** What the binary carries of a tool: all but its code. */
export function specOf(definition: ToolDefinition): BuiltinToolSpec {
  const { name, description, effect, parameters, loadMode } = defineTool(definition);
  return { name, description, effect, parameters, ...(loadMode ? { loadMode } : {}) };
}

export function builtinToolSpecs(): BuiltinToolSpec[] {
  return BUILTIN.map(specOf);
}

/** The edit tool of each edit format but replace (which is `edit` above), swapped in per model by registry.ts. */
export function editModeSpecs(): Record<"patch" | "hashline" | "apply_patch", BuiltinToolSpec> {
  return { patch: specOf(EDIT_MODES.patch), hashline: specOf(EDIT_MODES.hashline), apply_patch: specOf(EDIT_MODES.apply_patch) };
}

/** exit_plan_mode: offered only while a session is in plan mode (the session host adds it). */
export function planModeSpec(): BuiltinToolSpec {
  return specOf(PLAN);
}
