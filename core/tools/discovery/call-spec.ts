// Imported with { type: "macro" } by tool-discovery.ts: call_tool's JSON Schema is made from its
// zod schema when omp is bundled, as search_tool_bm25's is (search-spec.ts).
import { z } from "zod";
import { wireSchema } from "../define.ts";

export const CallInput = z.object({
  name: z.string(),
  arguments: z.record(z.string(), z.unknown()),
});

/**
 * The input as providers take it; `arguments` as a plain object, which is what zod's
 * propertyNames/additionalProperties say about it, in the fewest bytes (every request sends this).
 */
export function callToolParameters(): Record<string, unknown> {
  const schema = wireSchema(CallInput) as { properties: Record<string, unknown> };
  return { ...schema, properties: { ...schema.properties, arguments: { type: "object" } } };
}
