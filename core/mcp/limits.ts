import { formatBytes } from "../http/body-limit.ts";

/** What omp takes from MCP servers (`mcp.*` settings). */
export interface McpLimits {
  maxResultBytes: number;
  maxDescriptionChars: number;
}

export const DEFAULT_MCP_LIMITS: McpLimits = { maxResultBytes: 8 * 1024 * 1024, maxDescriptionChars: 2000 };

export function mcpLimits(settings: { maxResultMB: number; maxDescriptionChars: number }): McpLimits {
  return { maxResultBytes: Math.round(settings.maxResultMB * 1024 * 1024), maxDescriptionChars: settings.maxDescriptionChars };
}

/** The tool error for a result over the limit: its size, the limit, and what to do about it. */
export function resultTooLarge(server: string, bytes: number, limit: number): string {
  return `MCP server "${server}" sent a result of ${formatBytes(bytes)}, over the limit of ${formatBytes(limit)} (mcp.maxResultMB); ask the tool for less (a narrower query, a page), or raise the limit with \`omp config set mcp.maxResultMB <MB>\``;
}
