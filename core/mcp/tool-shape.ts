import type { Tool, ToolEffect } from "../tools/types.ts";
import { DEFAULT_MCP_LIMITS } from "./limits.ts";
import type { McpToolInfo } from "./tool-cache.ts";

/** How an MCP tool looks to the model, without zod: the tool-list cache builds tools from this before the SDK loads. */

/** A server's input schema as providers take it: always an object schema, without `$schema`. */
export function toolParameters(inputSchema: Record<string, unknown> | undefined): Record<string, unknown> {
  const { $schema: _schema, ...rest } = inputSchema ?? {};
  if (rest.type !== "object") return { type: "object", properties: {}, ...rest, ...(rest.type === undefined ? {} : { type: "object" }) };
  return rest;
}

/**
 * The description as the model sees it: said to come from the server (a third party's words, not
 * omp's), and cut with a note past the limit (some servers paste whole manuals into it).
 */
export function toolDescription(server: string, info: McpToolInfo, maxChars: number = DEFAULT_MCP_LIMITS.maxDescriptionChars): string {
  const text = info.description || info.title || info.annotations?.title || info.name;
  const cut = text.length > maxChars ? `${text.slice(0, maxChars)}… [description cut: ${text.length - maxChars} more characters]` : text;
  return `[MCP server "${server}", untrusted] ${cut}`;
}

/** readOnlyHint → read; anything else may change things. */
export const toolEffect = (info: McpToolInfo): ToolEffect => (info.annotations?.readOnlyHint === true ? "read" : "exec");

export const RESOURCES_TOOL_NAME = "mcp_resources";

/** The resource-listing tool's description: which servers have resources, and that `read` reads them. */
export function resourcesDescription(servers: readonly string[]): string {
  return (
    `Lists the resources of MCP servers (${servers.join(", ")}) as mcp://<server>/<resource uri> paths, and their resource templates (fill in the {placeholders}). ` +
    "Read one by giving its path to the read tool."
  );
}
