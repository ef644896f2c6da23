import { checkEgress, type EgressRequest } from "../permissions/egress.ts";
import { summarizeInput } from "../tools/approval.ts";
import { errorResult } from "../tools/format.ts";
import type { ToolContext, ToolResult } from "../tools/types.ts";
import { type ResolvedServer, isRemote } from "./config-schema.ts";

/**
 * A remote server from the project's own configuration (.mcp.json, .omp/mcp.json, a plugin the
 * project brings or enables) is a host the user has not named: the repository's author chose it,
 * so its tool calls ask once per host like web_fetch. Servers the user configured (user config,
 * --mcp-config, plugins they installed) are named by configuring them; local (stdio) servers are
 * processes, confined by the sandbox instead.
 * Returns the refusal, or undefined when the call may go.
 */
export async function projectServerEgress(server: ResolvedServer, toolName: string, args: Record<string, unknown>, context: ToolContext): Promise<ToolResult | undefined> {
  if (!server.fromProject || !isRemote(server)) return undefined;
  const url = new URL(server.url);
  const request: EgressRequest = {
    toolName,
    host: url.hostname.replace(/^\[|\]$/g, ""),
    port: url.port || (url.protocol === "https:" ? "443" : "80"),
    what: `the arguments ${summarizeInput(args)} (MCP server "${server.name}" ${server.scope === "plugin" ? "from a plugin the project brings" : "from the project's configuration"})`,
  };
  const outcome = await checkEgress(context.egress, request);
  return outcome.allow ? undefined : errorResult(outcome.message);
}
