import type { Runtime } from "../../core/agent/runtime.ts";
import { LazyMcpSource } from "../../core/mcp/lazy-source.ts";
import type { ServerState } from "../../core/mcp/manager.ts";
import type { CommandHost, SlashCommand } from "./commands.ts";

/** The MCP servers of this process, when any is configured. */
function mcpOf(runtime: Runtime): LazyMcpSource | undefined {
  const source = runtime.options.toolSource;
  return source instanceof LazyMcpSource ? source : undefined;
}

function stateLine(state: ServerState, enabled: boolean): string {
  const status =
    state.status === "ready" ? `ready, ${state.tools} tool${state.tools === 1 ? "" : "s"}` : state.status === "failed" ? `failed: ${state.error}` : state.status;
  return `${state.name} (${state.transport}): ${status}${enabled ? "" : " — disabled for this session"}`;
}

const USAGE = "/mcp [reconnect|enable|disable <server>]";

/** `/mcp`: each server's status; reconnect, enable or disable one for this session. */
export const MCP_COMMAND: SlashCommand = {
  name: "mcp",
  description: "MCP servers: status; reconnect, enable or disable one",
  async run(host: CommandHost, args: string) {
    const manager = await mcpOf(host.runtime)?.start();
    if (!manager) {
      host.notice("info", "No MCP servers configured. Add one with: omp mcp add <name> -- <command> [args…]");
      return;
    }
    const [action, name] = args.split(/\s+/).filter(Boolean);
    if (!action) {
      const lines = [...manager.states().map((state) => stateLine(state, manager.isEnabled(state.name))), ...manager.problems];
      if (lines.length === 0) host.notice("info", "No MCP servers.");
      for (const line of lines) host.notice("info", line);
      return;
    }
    if (!name || !["reconnect", "enable", "disable"].includes(action)) {
      host.notice("warning", `Usage: ${USAGE}`);
      return;
    }
    if (action === "reconnect") {
      host.setActivity(`reconnecting ${name}`);
      try {
        await manager.reconnect(name);
      } finally {
        host.setActivity(undefined);
      }
      const state = manager.states().find((s) => s.name === name)!;
      host.notice(state.status === "ready" ? "success" : "error", stateLine(state, manager.isEnabled(name)));
      return;
    }
    manager.setEnabled(name, action === "enable");
    host.notice("success", `${name}: ${action}d for this session.`);
  },
};
