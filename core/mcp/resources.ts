import { errorResult, textResult } from "../tools/format.ts";
import type { Tool } from "../tools/types.ts";
import type { McpConnection } from "./connection.ts";
import { localTool } from "./mcp-tool.ts";
import { allPages } from "./pages.ts";
import { ResourcesInput } from "./resources-spec.ts";
import { RESOURCES_TOOL_NAME, resourcesDescription } from "./tool-shape.ts";

/**
 * Lists the resources (and resource templates) of the servers that have them, each as the
 * `mcp://<server>/<uri>` path `read` takes: reading is `read`'s job, so a resource is paged,
 * shown as an image or described exactly as a file would be, and the model learns one way to read.
 */
export function resourcesTool(connections: McpConnection[]): Tool {
  const names = connections.map((c) => c.server.name);
  return localTool(RESOURCES_TOOL_NAME, resourcesDescription(names), ResourcesInput, async ({ server }, context) => {
    const chosen = server === undefined ? connections : connections.filter((c) => c.server.name === server);
    if (chosen.length === 0) return errorResult(`No MCP server named ${JSON.stringify(server)} has resources; these do: ${names.join(", ")}.`);
    const lines: string[] = [];
    for (const connection of chosen) {
      const name = connection.server.name;
      const signal = context.signal;
      try {
        const resources = await allPages(async (params) => {
          const page = await connection.request((client) => client.listResources(params, { signal }), signal);
          return { items: page.resources, nextCursor: page.nextCursor };
        });
        for (const item of resources) lines.push(`mcp://${name}/${item.uri} — ${item.name}${item.mimeType ? ` (${item.mimeType})` : ""}`);
      } catch (error) {
        lines.push(`${name}: listing failed: ${(error as Error).message}`);
        continue;
      }
      // Templates are optional: a server without them answers "method not found", which is no news.
      const templates = await allPages(async (params) => {
        const page = await connection.request((client) => client.listResourceTemplates(params, { signal }), signal);
        return { items: page.resourceTemplates, nextCursor: page.nextCursor };
      }).catch(() => []);
      for (const item of templates) lines.push(`mcp://${name}/${item.uriTemplate} — template: ${item.name}${item.description ? `. ${item.description}` : ""}`);
    }
    return textResult(lines.join("\n") || "No resources.");
  });
}
