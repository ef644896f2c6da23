// Imported with { type: "macro" }: runs when omp is bundled, so the skill tool's JSON Schema is
// made from its zod schema without loading zod at start-up (as builtin-specs.ts does for the
// built-in tools).
import { defineTool } from "../tools/define.ts";
import { skillToolDefinition } from "./skill-tool.ts";

export function skillToolSpec(): { name: string; description: string; effect: "read"; parameters: Record<string, unknown> } {
  const { name, description, parameters } = defineTool(skillToolDefinition);
  return { name, description, effect: "read", parameters };
}
