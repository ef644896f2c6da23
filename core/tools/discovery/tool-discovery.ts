import type { Tool } from "../types.ts";
import { type DiscoveryPolicy, deferredTools } from "./policy.ts";
import { searchToolParameters } from "./search-spec.ts" with { type: "macro" };

export const SEARCH_TOOL_NAME = "search_tool_bm25";

/** What search_tool_bm25 works on (see search-tool.ts). */
export interface DiscoveryHost {
  /** Every deferred tool, found or not. */
  deferred(): Tool[];
  /** Names found so far, in the order they joined the list. */
  activated(): readonly string[];
  /** Adds tools to the list sent from the next request on. */
  activate(names: readonly string[]): void;
}

/**
 * One session's deferred tools (request economy): the first request carries the tools sent as they
 * are and search_tool_bm25; a tool it finds joins the END of the list for every later request, so
 * the prefix the provider cached (the tools before it) stays the same. A tool is found for the rest
 * of the session: a resume sends the stored list again, and the names in it count as found.
 */
export class ToolDiscovery implements DiscoveryHost {
  private readonly found: string[];
  private offered: { all: readonly Tool[]; found: number; tools: Tool[] } | undefined;
  private all: readonly Tool[] = [];
  private search: { key: string; tool: Tool } | undefined;

  constructor(
    private readonly policy: DiscoveryPolicy,
    /** Tool names a resumed session already sends. */
    resumed: readonly string[],
    /** Called when a search (or a call by name) adds tools: the agent's list changed. */
    private readonly changed: () => void,
  ) {
    this.found = [...resumed];
  }

  /** The tools sent to the model out of `all`: the ones sent as they are, search_tool_bm25, then those found. Same array until something changed. */
  offer(all: readonly Tool[]): Tool[] {
    if (this.offered && this.offered.all === all && this.offered.found === this.found.length) return this.offered.tools;
    this.all = all;
    const deferred = deferredTools(all, this.policy);
    let tools: Tool[];
    if (deferred.length === 0) tools = [...all];
    else {
      const hidden = new Set(deferred.map((tool) => tool.name));
      const found = this.found.flatMap((name) => deferred.find((tool) => tool.name === name) ?? []);
      tools = [...all.filter((tool) => !hidden.has(tool.name)), this.searchTool(deferred), ...found];
    }
    this.offered = { all, found: this.found.length, tools };
    return tools;
  }

  /** A deferred tool the model called by name without searching: found now, and run. */
  unlisted(name: string): Tool | undefined {
    const tool = this.deferred().find((candidate) => candidate.name === name);
    if (tool) this.activate([name]);
    return tool;
  }

  deferred(): Tool[] {
    return deferredTools(this.all, this.policy);
  }

  activated(): readonly string[] {
    return this.found;
  }

  activate(names: readonly string[]): void {
    const added = names.filter((name) => !this.found.includes(name));
    if (added.length === 0) return;
    this.found.push(...added);
    this.changed();
  }

  /**
   * The search tool, the same object while the deferred set is: its description names what can be
   * found (all of it, found or not, so that finding a tool changes nothing before the end of the list).
   */
  private searchTool(deferred: readonly Tool[]): Tool {
    const key = deferred.map((tool) => tool.name).join("\n");
    if (this.search?.key === key) return this.search.tool;
    let implementation: ReturnType<Tool["load"]> | undefined;
    const tool: Tool = {
      name: SEARCH_TOOL_NAME,
      description: searchDescription(deferred),
      effect: "read",
      parameters: searchToolParameters(),
      load: () => (implementation ??= import("./search-tool.ts").then((module) => module.searchToolImplementation(this))),
    };
    this.search = { key, tool };
    return tool;
  }
}

/** What the model reads about search_tool_bm25: how it works and what it can find (built-ins by name, MCP tools by server). */
export function searchDescription(deferred: readonly Tool[]): string {
  const builtins = deferred.filter((tool) => tool.mcpServer === undefined).map((tool) => tool.name);
  const servers = new Map<string, number>();
  for (const tool of deferred) if (tool.mcpServer !== undefined) servers.set(tool.mcpServer, (servers.get(tool.mcpServer) ?? 0) + 1);
  const sources = [...builtins, ...[...servers].map(([server, count]) => `MCP server ${server} (${count} tools)`)];
  return `Loads the tools not sent yet that best match query (BM25 over names, descriptions, parameters) for your next step; naming one in a call loads it too. Not loaded: ${sources.join(", ")}.`;
}
