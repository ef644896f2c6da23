import { z } from "zod";
import { textResult } from "../tools/format.ts";
import type { Tool } from "../tools/types.ts";
import { localTool } from "./mcp-tool.ts";
import { fitsShare } from "./tool-shape.ts";
import { plural } from "../plural.ts";

const TOOL_SEARCH_NAME = "mcp_tool_search";

const DEFAULT_LIMIT = 5;

const SearchInput = z.object({
  query: z.string().describe("exact tool names (comma or space separated) or keywords describing what you need"),
  limit: z.number().int().positive().max(20).optional().describe(`how many tools to load at most (default ${DEFAULT_LIMIT})`),
});

/**
 * Big tool sets, as Claude Code and opencode handle them: when the MCP tools' schemas would take
 * more than a share of the context window, the model gets their names only and a search tool
 * that loads the chosen ones; from its next step on they are offered with their full schemas.
 */
export class ToolSearch {
  private readonly loaded = new Set<string>();
  private offered: { from: readonly Tool[]; window: number; tools: Tool[] } | undefined;

  constructor(private readonly changed: () => void) {}

  offer(all: readonly Tool[], contextWindow: number, env: NodeJS.ProcessEnv): Tool[] {
    const last = this.offered;
    if (last && last.from === all && last.window === contextWindow) return last.tools;
    const tools = fitsShare(all, contextWindow, env) ? [...all] : [...all.filter((t) => this.loaded.has(t.name)), this.searchTool(all)];
    this.offered = { from: all, window: contextWindow, tools };
    return tools;
  }

  private searchTool(all: readonly Tool[]): Tool {
    const deferred = all.filter((tool) => !this.loaded.has(tool.name));
    const description =
      `Loads MCP tools so you can call them. These tools exist but are not loaded yet (names only): ${deferred.map((t) => t.name).join(", ") || "none"}. ` +
      "Give their names or keywords; the loaded tools can be called from your next step on.";
    return localTool(TOOL_SEARCH_NAME, description, SearchInput, async ({ query, limit }) => {
      const found = match(all, query, limit ?? DEFAULT_LIMIT);
      if (found.length === 0) return textResult(`No MCP tool matches ${JSON.stringify(query)}. Available: ${all.map((t) => t.name).join(", ")}`);
      for (const tool of found) this.loaded.add(tool.name);
      this.offered = undefined;
      this.changed();
      const lines = found.map((tool) => `- ${tool.name}: ${tool.description.split("\n")[0]}\n  input: ${JSON.stringify(tool.parameters)}`);
      return textResult(`Loaded ${plural(found.length, "tool")}; call them directly now:\n${lines.join("\n")}`);
    });
  }
}

function match(all: readonly Tool[], query: string, limit: number): Tool[] {
  const words = query.split(/[\s,]+/).filter(Boolean);
  const exact = all.filter((tool) => words.includes(tool.name));
  if (exact.length > 0) return exact.slice(0, limit);
  const terms = words.map((word) => word.toLowerCase());
  return all
    .map((tool) => {
      const haystack = `${tool.name} ${tool.description}`.toLowerCase();
      return { tool, score: terms.reduce((sum, term) => sum + (tool.name.toLowerCase().includes(term) ? 3 : haystack.includes(term) ? 1 : 0), 0) };
    })
    .filter((entry) => entry.score > 0)
    .sort((a, b) => b.score - a.score)
    .slice(0, limit)
    .map((entry) => entry.tool);
}
