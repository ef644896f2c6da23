import type { ToolDeclaration } from "../declare.ts";
import { applyPatch } from "./apply-patch.ts";
import { astEdit } from "./ast-edit.ts";
import { astGrep } from "./ast-grep.ts";
import { ask } from "./ask.ts";
import { bash, shell } from "./bash.ts";
import { browser } from "./browser.ts";
import { checkpoint, rewind } from "./checkpoint.ts";
import { edit } from "./edit.ts";
import { evalTool } from "./eval.ts";
import { exitPlanMode } from "./exit-plan-mode.ts";
import { find } from "./find.ts";
import { github } from "./github.ts";
import { grep } from "./grep.ts";
import { inspectImage } from "./inspect-image.ts";
import { job } from "./job.ts";
import { ls } from "./ls.ts";
import { lsp } from "./lsp.ts";
import { recall, reflect, retain } from "./memory.ts";
import { read } from "./read.ts";
import { resolve } from "./resolve.ts";
import { searchTool } from "./search-tool.ts";
import { skill } from "./skill.ts";
import { ssh } from "./ssh.ts";
import { task } from "./task.ts";
import { todo } from "./todo.ts";
import { webFetch } from "./web-fetch.ts";
import { webSearch } from "./web-search.ts";
import { write } from "./write.ts";

/**
 * The built-in tools, in the order they are offered to the model. Adding a tool: its declaration
 * (a file in this folder) goes here; its code is the module the declaration's `load` imports.
 */
export const BUILTIN_TOOLS: readonly ToolDeclaration[] = [read, write, edit, bash, evalTool, grep, find, ls, todo, job, webFetch, webSearch, browser, inspectImage, lsp, astGrep, astEdit, ask, retain, recall, reflect, github, ssh, resolve, checkpoint, rewind];

/** Tools offered in another tool's place or by other parts (plan mode, edit formats, subagents, skills, tool discovery, the user's `!cmd`). */
export const OTHER_TOOLS: readonly ToolDeclaration[] = [applyPatch, exitPlanMode, task, skill, searchTool, shell];

/** Every declared tool by name: what the tables of presentation, path scope and Claude names read. */
export const DECLARED: ReadonlyMap<string, ToolDeclaration> = new Map([...BUILTIN_TOOLS, ...OTHER_TOOLS].map((declaration) => [declaration.name, declaration]));

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
