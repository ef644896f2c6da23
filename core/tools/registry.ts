import { z } from "zod";
import { OmpError } from "../errors/omp-error.ts";
import { bashTool } from "./bash.ts";
import { editTool } from "./edit.ts";
import { findTool } from "./find.ts";
import { grepTool } from "./grep.ts";
import { lsTool } from "./ls.ts";
import { readTool } from "./read.ts";
import { createTodoStore, createTodoTool, type TodoStore } from "./todo.ts";
import type { Tool } from "./types.ts";
import { writeTool } from "./write.ts";

export interface BuiltinToolOptions {
  /** The session's todo list; a fresh one when absent. */
  todoStore?: TodoStore;
}

/** Every built-in tool, in the order they are offered to the model. */
export function builtinTools(options: BuiltinToolOptions = {}): Tool[] {
  return [
    readTool,
    writeTool,
    editTool,
    bashTool,
    grepTool,
    findTool,
    lsTool,
    createTodoTool(options.todoStore ?? createTodoStore()),
  ];
}

export interface ToolSelection {
  /** `--tools a,b`: only these; entries may themselves be comma-separated. */
  only?: string[];
  /** `--no-tools`. */
  none?: boolean;
}

/** Applies `--tools` / `--no-tools`. Throws an OmpError (exit code 2) naming unknown tools and the valid names. */
export function selectTools(all: readonly Tool[], selection: ToolSelection): Tool[] {
  if (selection.none && selection.only) throw new OmpError("--tools and --no-tools cannot be used together.", { exitCode: 2 });
  if (selection.none) return [];
  if (!selection.only) return [...all];
  const wanted = new Set(selection.only.flatMap((entry) => entry.split(",")).map((name) => name.trim()).filter(Boolean));
  const valid = all.map((tool) => tool.name);
  if (wanted.size === 0) {
    throw new OmpError(`--tools needs at least one tool name (valid: ${valid.join(", ")}); use --no-tools for none.`, { exitCode: 2 });
  }
  const unknown = [...wanted].filter((name) => !valid.includes(name));
  if (unknown.length > 0) {
    const names = unknown.map((name) => JSON.stringify(name)).join(", ");
    throw new OmpError(`Unknown tool${unknown.length > 1 ? "s" : ""} ${names} in --tools. Valid tools: ${valid.join(", ")}.`, { exitCode: 2 });
  }
  return all.filter((tool) => wanted.has(tool.name));
}

/** What providers are sent: the tool's name, description and input schema as JSON Schema. */
export interface ToolSpec {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

/** zod writes z.int()'s implicit safe-integer range into the schema; it only adds noise for the model. */
function dropImplicitIntBounds(node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) dropImplicitIntBounds(item);
    return;
  }
  if (node === null || typeof node !== "object") return;
  const record = node as Record<string, unknown>;
  if (record.maximum === Number.MAX_SAFE_INTEGER) delete record.maximum;
  if (record.minimum === Number.MIN_SAFE_INTEGER) delete record.minimum;
  for (const value of Object.values(record)) dropImplicitIntBounds(value);
}

export function toToolSpec(tool: Tool): ToolSpec {
  let parameters: Record<string, unknown>;
  try {
    // "input": optional fields stay optional and defaults do not become required.
    parameters = z.toJSONSchema(tool.schema, { io: "input" }) as Record<string, unknown>;
  } catch (error) {
    throw new Error(`Tool ${tool.name}: its input schema cannot be expressed as JSON Schema`, { cause: error });
  }
  delete parameters.$schema;
  dropImplicitIntBounds(parameters);
  if (parameters.type !== "object") throw new Error(`Tool ${tool.name}: its input schema must be an object`);
  return { name: tool.name, description: tool.description, parameters };
}
