import type { DiscoveryMode, Settings } from "../../config/settings-schema.ts";
import type { Tool } from "../types.ts";

/** Under `auto`, MCP tools are sent as they are up to this many; past it, all of them are found by search instead. */
export const MCP_SENT_MAX = 3;

export interface DiscoveryPolicy {
  mode: DiscoveryMode;
  /** `tools.essentialOverride`: never deferred. */
  essential: readonly string[];
}

/** The session's policy from its settings; `mcp.discoveryMode: true` (the original's older switch) is mcp-only under auto. */
export function discoveryPolicy(settings: Pick<Settings, "tools" | "mcp"> | undefined): DiscoveryPolicy {
  if (!settings) return { mode: "auto", essential: [] };
  const mode = settings.tools.discoveryMode === "auto" && settings.mcp.discoveryMode === true ? "mcp-only" : settings.tools.discoveryMode;
  return { mode, essential: settings.tools.essentialOverride };
}

/** A tool someone named (`--tools`, an agent definition's tools): sent as it is, never deferred. */
export function named(tool: Tool): Tool {
  const { loadMode: _loadMode, ...rest } = tool;
  return rest;
}

/** The tools of `tools` kept out of the request until search_tool_bm25 finds them, in their order. */
export function deferredTools(tools: readonly Tool[], policy: DiscoveryPolicy): Tool[] {
  if (policy.mode === "off") return [];
  const discoverable = tools.filter((tool) => tool.loadMode === "discoverable" && !policy.essential.includes(tool.name));
  const mcpCount = tools.filter((tool) => tool.mcpServer !== undefined).length;
  return discoverable.filter((tool) => {
    const fromMcp = tool.mcpServer !== undefined;
    if (policy.mode === "all") return true;
    if (policy.mode === "mcp-only") return fromMcp;
    return !fromMcp || mcpCount > MCP_SENT_MAX;
  });
}
