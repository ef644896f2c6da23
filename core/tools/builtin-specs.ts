// Imported with { type: "macro" } by registry.ts: runs when omp is bundled, so the compiled binary
// carries the built-in tools' names, effects and JSON Schemas, and neither zod nor the tools' code
// is needed before their first call.
import { bashTool } from "./bash.ts";
import { evalTool } from "./eval.ts";
import { defineTool } from "./define.ts";
import { editTool } from "./edit.ts";
import { applyPatchTool, hashlineEditTool, patchEditTool } from "./edit/tools.ts";
import { findTool } from "./find.ts";
import { grepTool } from "./grep.ts";
import { jobTool } from "./job.ts";
import { lsTool } from "./ls.ts";
import { lspTool } from "./lsp.ts";
import { astEditTool } from "./ast-edit.ts";
import { astGrepTool } from "./ast-grep.ts";
import { readTool } from "./read.ts";
import { resolveTool } from "./resolve.ts";
import { checkpointTool, rewindTool } from "./checkpoint.ts";
import { createTodoStore, createTodoTool } from "./todo.ts";
import type { Tool, ToolDefinition } from "./types.ts";
import { webFetchTool } from "./web-fetch.ts";
import { webSearchTool } from "./web-search.ts";
import { writeTool } from "./write.ts";
import { askTool } from "./ask.ts";
import { exitPlanModeTool } from "./exit-plan-mode.ts";
import { recallTool, reflectTool, retainTool } from "./memory.ts";
import { browserTool } from "./browser.ts";
import { inspectImageTool } from "./inspect-image.ts";
import { sshTool } from "./ssh.ts";
import { githubTool } from "./github.ts";

/**
 * Every built-in tool, in the order they are offered to the model (the todo tool with a store of its own).
 * A rarely needed tool is kept out of the first request by `loadMode: "discoverable"` on its
 * definition (see LoadMode in types.ts): the model finds it with search_tool_bm25.
 */
export function builtinToolDefinitions(): ToolDefinition[] {
  return [readTool, writeTool, editTool, bashTool, evalTool, grepTool, findTool, lsTool, createTodoTool(createTodoStore()), jobTool, webFetchTool, webSearchTool, browserTool, inspectImageTool, lspTool, astGrepTool, astEditTool, askTool, retainTool, recallTool, reflectTool, githubTool, sshTool, resolveTool, checkpointTool, rewindTool];
}

export type BuiltinToolSpec = Omit<Tool, "load">;

/** What the binary carries of a tool: all but its code. */
function spec(definition: ToolDefinition): BuiltinToolSpec {
  const { name, description, effect, parameters, loadMode } = defineTool(definition);
  return { name, description, effect, parameters, ...(loadMode ? { loadMode } : {}) };
}

export function builtinToolSpecs(): BuiltinToolSpec[] {
  return builtinToolDefinitions().map(spec);
}

/** The edit tool of each edit format but replace (which is `edit` above), swapped in per model by registry.ts. */
export function editModeSpecs(): Record<"patch" | "hashline" | "apply_patch", BuiltinToolSpec> {
  return { patch: spec(patchEditTool), hashline: spec(hashlineEditTool), apply_patch: spec(applyPatchTool) };
}

/** exit_plan_mode: offered only while a session is in plan mode (the session host adds it). */
export function planModeSpec(): BuiltinToolSpec {
  return spec(exitPlanModeTool);
}
