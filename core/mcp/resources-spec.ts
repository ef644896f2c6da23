// Imported with { type: "macro" } by lazy-source.ts: the listing tool's JSON Schema is made from its
// zod schema when omp is bundled, so a first request built from the tool-list cache offers the
// tool without loading zod.
import { z } from "zod";
import { wireSchema } from "../tools/define.ts";

export const ResourcesInput = z.object({
  server: z.string().optional().describe("only this MCP server"),
});

/** The input as providers take it. */
export function resourcesToolParameters(): Record<string, unknown> {
  return wireSchema(ResourcesInput);
}
