import type { CodedToolDeclaration, ToolDeclaration } from "../declare.ts";
import { applyPatch } from "./apply-patch.ts";
import { edit } from "./edit.ts";
import { exitPlanMode } from "./exit-plan-mode.ts";
import { DECLARATION_MODULES } from "./modules.ts";

type BuiltinDeclaration = CodedToolDeclaration & { order: number };

/** The tools a folder's modules declare: their exports with a name (helpers export functions and nameless objects). */
export function declaredIn(modules: readonly Record<string, unknown>[]): { builtin: BuiltinDeclaration[]; other: ToolDeclaration[]; byName: Map<string, ToolDeclaration> } {
  const all = modules.flatMap((module) => Object.values(module).filter((value): value is ToolDeclaration => typeof value === "object" && value !== null && typeof (value as { name?: unknown }).name === "string"));
  const byName = new Map<string, ToolDeclaration>();
  for (const declaration of all) {
    if (byName.has(declaration.name)) throw new Error(`Tool ${declaration.name} is declared twice in core/tools/declarations: give one of them another name`);
    byName.set(declaration.name, declaration);
  }
  const builtin = all.filter((declaration): declaration is BuiltinDeclaration => typeof (declaration as CodedToolDeclaration).order === "number").sort((a, b) => a.order - b.order);
  for (const [index, declaration] of builtin.entries()) {
    const next = builtin[index + 1];
    if (next?.order === declaration.order) throw new Error(`Tools ${declaration.name} and ${next.name} both have order ${declaration.order}: give one of them a free place`);
  }
  return { builtin, other: all.filter((declaration) => !builtin.includes(declaration as BuiltinDeclaration)), byName };
}

const DECLARATIONS = declaredIn(DECLARATION_MODULES);

/**
 * The built-in tools, in the order they are offered to the model: every declaration in this folder
 * with an `order`. Adding a tool: its declaration (a file here) and its code (the module its `load`
 * imports); nothing else names it.
 */
export const BUILTIN_TOOLS: readonly BuiltinDeclaration[] = DECLARATIONS.builtin;

/** Tools offered in another tool's place or by other parts (plan mode, edit formats, subagents, skills, tool discovery, the user's `!cmd`). */
export const OTHER_TOOLS: readonly ToolDeclaration[] = DECLARATIONS.other;

/** Every declared tool by name: what the tables of presentation, path scope and Claude names read. */
export const DECLARED: ReadonlyMap<string, ToolDeclaration> = DECLARATIONS.byName;

/** The declaration of the tool by this name; undefined for tools omp does not declare (MCP, plugins). */
export function declarationOf(name: string): ToolDeclaration | undefined {
  return DECLARED.get(name);
}

/** The declared tool that has this other name (`webfetch`), for Claude's permission rules. */
export function declarationAliased(name: string): ToolDeclaration | undefined {
  for (const declaration of DECLARED.values()) if (declaration.aliases?.includes(name)) return declaration;
  return undefined;
}

export { applyPatch, edit, exitPlanMode };
export { editModes } from "./edit.ts";
