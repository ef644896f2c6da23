import { z } from "zod";
import { errorResult, textResult } from "../tools/format.ts";
import type { Tool } from "../tools/types.ts";
import type { McpConnection } from "./connection.ts";
import { localTool } from "./mcp-tool.ts";
import { allPages } from "./pages.ts";

const RESOURCES_TOOL_NAME = "mcp_resources";

const ResourcesInput = z.object({
  server: z.string().optional().describe("only this MCP server"),
  uri: z.string().optional().describe("read this resource; without it, list the resources"),
});

/** Lists or reads the resources of the servers that have them. */
export function resourcesTool(connections: McpConnection[]): Tool {
  const names = connections.map((c) => c.server.name);
  const description = `Lists the resources of MCP servers (${names.join(", ")}), or reads one by its uri.`;
  return localTool(RESOURCES_TOOL_NAME, description, ResourcesInput, async ({ server, uri }, context) => {
    const chosen = server === undefined ? connections : connections.filter((c) => c.server.name === server);
    if (chosen.length === 0) return errorResult(`No MCP server named ${JSON.stringify(server)} has resources; these do: ${names.join(", ")}.`);
    if (uri !== undefined) {
      const failures: string[] = [];
      for (const connection of chosen) {
        try {
          const result = await connection.request((client) => client.readResource({ uri }, { signal: context.signal }), context.signal);
          const parts = result.contents.map((item) =>
            "text" in item && typeof item.text === "string" ? item.text : `[binary ${item.mimeType ?? "data"}, ${("blob" in item ? String(item.blob) : "").length} base64 characters]`,
          );
          return textResult(parts.join("\n"));
        } catch (error) {
          failures.push(`${connection.server.name}: ${(error as Error).message}`);
        }
      }
      return errorResult(`Could not read ${uri}: ${failures.join("; ")}`);
    }
    const lines: string[] = [];
    for (const connection of chosen) {
      try {
        const resources = await allPages(async (params) => {
          const page = await connection.request((client) => client.listResources(params, { signal: context.signal }), context.signal);
          return { items: page.resources, nextCursor: page.nextCursor };
        });
        for (const item of resources) lines.push(`${connection.server.name}: ${item.uri} — ${item.name}${item.mimeType ? ` (${item.mimeType})` : ""}`);
      } catch (error) {
        lines.push(`${connection.server.name}: listing failed: ${(error as Error).message}`);
      }
    }
    return textResult(lines.join("\n") || "No resources.");
  });
}
