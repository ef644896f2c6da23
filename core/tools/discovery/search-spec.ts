// Imported with { type: "macro" } by tool-discovery.ts: search_tool_bm25's JSON Schema is made from
// its zod schema when omp is bundled, so offering it loads neither zod nor the search.
import { z } from "zod";
import { wireSchema } from "../define.ts";

export const DEFAULT_LIMIT = 8;

export const SearchInput = z.object({
  query: z.string().describe("What the tool should do, in keywords"),
  limit: z.number().int().min(1).optional().describe(`Most tools to load (default ${DEFAULT_LIMIT})`),
});

/** The input as providers take it. */
export function searchToolParameters(): Record<string, unknown> {
  return wireSchema(SearchInput);
}
