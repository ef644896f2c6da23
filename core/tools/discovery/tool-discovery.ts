import type { Tool } from "../types.ts";
import { type DiscoveryPolicy, deferredTools } from "./policy.ts";
import { searchToolParameters } from "./search-spec.ts" with { type: "macro" };
import { callToolParameters } from "./call-spec.ts" with { type: "macro" };

export const SEARCH_TOOL_NAME = "search_tool_bm25";
/** Runs a deferred tool by name (core/agent/tool-calls.ts unwraps it before the approval gate), so finding one changes no request's tools. */
export const CALL_TOOL_NAME = "call_tool";

/**
 * The call a call_tool call stands for: the tool it names with the arguments it gives (what runs,
 * and what front ends show); any other call as it is.
 */
export function namedCall(name: string, args: Record<string, unknown>): { name: string; arguments: Record<string, unknown> } {
  if (name !== CALL_TOOL_NAME) return { name, arguments: args };
  const inner = args.arguments;
  return { name: typeof args.name === "string" ? args.name : "", arguments: inner !== null && typeof inner === "object" && !Array.isArray(inner) ? (inner as Record<string, unknown>) : {} };
}

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
 * One session's deferred tools (request economy): every request carries the tools sent as they
 * are, search_tool_bm25 and call_tool. search_tool_bm25 hands the model the definitions of the
 * tools it finds, which it runs through call_tool: the tools every request sends never change, so
 * neither the provider's cached prefix nor signed thinking made behind it is lost. A deferred tool
 * the model calls by its own name (it was not sent, and some providers refuse a history naming a
 * tool they were not sent) joins the END of the list for the rest of the session; a resume sends
 * the stored list again, and the deferred names in it count as joined.
 */
export class ToolDiscovery implements DiscoveryHost {
  private readonly found: string[] = [];
  private readonly joined: string[];
  private offered: { all: readonly Tool[]; joined: number; tools: Tool[] } | undefined;
  private all: readonly Tool[] = [];
  private search: { key: string; tool: Tool } | undefined;
  private call: Tool | undefined;

  constructor(
    private readonly policy: DiscoveryPolicy,
    /** Tool names a resumed session already sends. */
    resumed: readonly string[],
    /** Called when a call by name adds a tool: the agent's list changed. */
    private readonly changed: () => void,
  ) {
    this.joined = [...resumed];
  }

  /** The tools sent to the model out of `all`: the ones sent as they are, search_tool_bm25, call_tool, then those joined. Same array until something changed. */
  offer(all: readonly Tool[]): Tool[] {
    if (this.offered && this.offered.all === all && this.offered.joined === this.joined.length) return this.offered.tools;
    this.all = all;
    const deferred = deferredTools(all, this.policy);
    let tools: Tool[];
    if (deferred.length === 0) tools = [...all];
    else {
      const hidden = new Set(deferred.map((tool) => tool.name));
      const joined = this.joined.flatMap((name) => deferred.find((tool) => tool.name === name) ?? []);
      tools = [...all.filter((tool) => !hidden.has(tool.name)), this.searchTool(deferred), this.callTool(), ...joined];
    }
    this.offered = { all, joined: this.joined.length, tools };
    return tools;
  }

  /** A deferred tool the model called by its own name: it joins the list, and runs. */
  unlisted(name: string): Tool | undefined {
    const tool = this.deferredTool(name);
    if (tool && !this.joined.includes(name)) {
      this.joined.push(name);
      this.changed();
    }
    return tool;
  }

  /** The deferred tool `name`, for call_tool: run without changing the list. */
  deferredTool(name: string): Tool | undefined {
    return this.deferred().find((candidate) => candidate.name === name);
  }

  /** Whether the model calls `name` through call_tool: it is deferred and not in the list. */
  callsThrough(name: string): boolean {
    return this.deferredTool(name) !== undefined && !this.joined.includes(name);
  }

  deferred(): Tool[] {
    return deferredTools(this.all, this.policy);
  }

  activated(): readonly string[] {
    return [...this.joined, ...this.found.filter((name) => !this.joined.includes(name))];
  }

  activate(names: readonly string[]): void {
    for (const name of names) if (!this.found.includes(name)) this.found.push(name);
  }

  private callTool(): Tool {
    this.call ??= {
      name: CALL_TOOL_NAME,
      description: `Runs a tool ${SEARCH_TOOL_NAME} loaded.`,
      effect: "read",
      parameters: callToolParameters(),
      // Unwrapped before anything runs (core/agent/tool-calls.ts): the named tool runs, through the approval gate.
      load: () => Promise.reject(new Error(`${CALL_TOOL_NAME} runs the tool it names`)),
    };
    return this.call;
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
  return `Loads the tools not sent yet that best match query (BM25 over names, descriptions, parameters); run them with ${CALL_TOOL_NAME}. Not loaded: ${sources.join(", ")}.`;
}
