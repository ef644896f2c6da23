import { z } from "zod";
import type { Tool, ToolContext, ToolImplementation, ToolResult } from "../tools/types.ts";
import { wireSchema } from "../tools/define.ts";
import type { McpToolInfo } from "./tool-cache.ts";
import { toolDescription, toolEffect, toolParameters } from "./tool-shape.ts";

/** The server validates its own input; omp only checks that the model sent an object. */
const ANY_OBJECT = z.record(z.string(), z.unknown());

export type McpCall = (args: Record<string, unknown>, context: ToolContext) => Promise<ToolResult>;

/**
 * An MCP tool as the agent holds it, so it goes through the same runner as the built-in ones:
 * approvals (readOnlyHint → read, anything else → exec) and hooks see it by its mcp__ name.
 */
export function mcpTool(name: string, server: string, info: McpToolInfo, call: McpCall, maxDescriptionChars?: number): Tool {
  const implementation: ToolImplementation = { schema: ANY_OBJECT, execute: (input, context) => call(input as Record<string, unknown>, context) };
  const loaded = Promise.resolve(implementation);
  return {
    name,
    description: toolDescription(server, info, maxDescriptionChars),
    effect: toolEffect(info),
    parameters: toolParameters(info.inputSchema),
    loadMode: "discoverable",
    mcpServer: server,
    load: () => loaded,
  };
}

/** A tool omp itself adds next to the servers' (the resource listing). */
export function localTool<S extends z.ZodObject>(
  name: string,
  description: string,
  schema: S,
  execute: (input: z.infer<S>, context: ToolContext) => Promise<ToolResult>,
): Tool {
  const parameters = wireSchema(schema);
  const loaded = Promise.resolve({ schema, execute } as ToolImplementation);
  return { name, description, effect: "read", parameters, load: () => loaded };
}
