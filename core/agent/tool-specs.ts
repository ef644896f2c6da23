import type { ToolSpec } from "../ai/stream.ts";
import type { Tool } from "../tools/types.ts";

/** A tool as providers see it; its JSON Schema was made when the tool was (at bundle time for the built-in ones). */
export function toolSpec(tool: Tool): ToolSpec {
  return { name: tool.name, description: tool.description, parameters: tool.parameters };
}
