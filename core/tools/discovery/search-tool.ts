import { errorResult, textResult } from "../format.ts";
import type { Tool, ToolImplementation, ToolResult } from "../types.ts";
import { Bm25Index, type ToolDocument } from "./bm25.ts";
import { DEFAULT_LIMIT, SearchInput } from "./search-spec.ts";
import type { DiscoveryHost } from "./tool-discovery.ts";

/** For UIs and the session, never sent to the model: the ranked matches. */
export interface SearchToolDetails {
  query: string;
  limit: number;
  total_tools: number;
  activated_tools: string[];
  active_selected_tools: string[];
  tools: { name: string; description: string; server_name?: string; schema_keys: string[]; score: number }[];
}

const SUMMARY_CHARS = 200;

/** The searchable text of a tool: its name, server, description (without the untrusted-source note) and parameter names. */
export function toolDocument(tool: Tool): ToolDocument {
  const properties = (tool.parameters as { properties?: Record<string, unknown> }).properties;
  return {
    name: tool.name,
    description: tool.description.replace(/^\[MCP server "[^"]*", untrusted\] /, ""),
    ...(tool.mcpServer !== undefined ? { server: tool.mcpServer } : {}),
    schemaKeys: properties ? Object.keys(properties) : [],
  };
}

/**
 * Ranks the deferred tools not found yet against the query and loads the best `limit`; the model
 * sees the original omp's compact summary ({query, activated_tools, match_count, total_tools}) and
 * the definitions of the tools loaded, which it runs through call_tool (tool-discovery.ts).
 */
export function searchToolImplementation(host: DiscoveryHost): ToolImplementation<typeof SearchInput, SearchToolDetails> {
  return {
    schema: SearchInput,
    async execute({ query, limit }): Promise<ToolResult<SearchToolDetails>> {
      const trimmed = query.trim();
      if (trimmed === "") return errorResult("query is empty: give keywords for what the tool should do (e.g. \"rename symbol\").");
      const max = limit ?? DEFAULT_LIMIT;
      const deferred = host.deferred();
      const candidates = deferred.filter((tool) => !host.activated().includes(tool.name));
      let ranked;
      try {
        ranked = new Bm25Index(candidates, toolDocument).search(trimmed, (tool) => tool.name).slice(0, max);
      } catch (error) {
        return errorResult((error as Error).message);
      }
      const names = ranked.map((match) => match.item.name);
      host.activate(names);
      const details: SearchToolDetails = {
        query: trimmed,
        limit: max,
        total_tools: deferred.length,
        activated_tools: names,
        active_selected_tools: [...host.activated()],
        tools: ranked.map(({ item, score }) => {
          const doc = toolDocument(item);
          return { name: item.name, description: doc.description.slice(0, SUMMARY_CHARS), ...(doc.server ? { server_name: doc.server } : {}), schema_keys: [...doc.schemaKeys], score: Math.round(score * 1e6) / 1e6 };
        }),
      };
      const definitions = ranked.map(({ item }) => ({ name: item.name, description: item.description, parameters: item.parameters }));
      return textResult(JSON.stringify({ query: trimmed, activated_tools: names, match_count: names.length, total_tools: deferred.length, tools: definitions }), details);
    },
  };
}
