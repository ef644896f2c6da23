// Imported with { type: "macro" } by lazy-source.ts: the listing tool's JSON Schema is made from its
// zod schema when omp is bundled, so a first request built from the tool-list cache offers the
// tool without loading zod.
import { z } from "zod";

export const ResourcesInput = z.object({
  server: z.string().optional().describe("only this MCP server"),
});

/** The input as providers take it. */
export function resourcesToolParameters(): Record<string, unknown> {
  const { $schema: _schema, ...parameters } = z.toJSONSchema(ResourcesInput, { io: "input" }) as Record<string, unknown>;
  return parameters;
}
