import type { Runtime } from "../../../core/agent/runtime.ts";
import { describeError } from "../../../core/errors/omp-error.ts";
import { LazyMcpSource } from "../../../core/mcp/lazy-source.ts";
import type { McpManager, ServerState } from "../../../core/mcp/manager.ts";
import { openBrowser } from "../../shared/open-browser.ts";
import type { CommandHost, SlashCommand } from "./commands.ts";
import { plural } from "../../../core/plural.ts";

/** The MCP servers of this process, when any is configured. */
function mcpOf(runtime: Runtime): LazyMcpSource | undefined {
  const source = runtime.options.toolSource;
  return source instanceof LazyMcpSource ? source : undefined;
}

function statusOf(state: ServerState): string {
  switch (state.status) {
    case "ready":
      return `ready, ${plural(state.tools, "tool")}`;
    case "failed":
      return `failed: ${state.error}`;
    case "needs-auth":
      return `needs auth: /mcp auth ${state.name} logs in`;
    default:
      return state.status;
  }
}

function stateLine(state: ServerState, enabled: boolean): string {
  const status = statusOf(state);
  return `${state.name} (${state.transport}): ${status}${enabled ? "" : " — disabled for this session"}`;
}

const USAGE = "/mcp [reconnect|enable|disable|auth <server>] · /mcp auth paste <url>";
const ACTIONS = ["reconnect", "enable", "disable", "auth"];

/** The login waiting for its browser: `/mcp auth paste <url>` hands it the URL the browser ended on. */
let pendingPaste: ((text: string) => void) | undefined;

/**
 * `/mcp auth <server>`: the OAuth login of `omp mcp login` (URL shown and opened in a browser,
 * the code taken on loopback or pasted), then the server connected again with the new tokens.
 */
async function authServer(host: CommandHost, manager: McpManager, name: string, rest: string[]): Promise<void> {
  if (name === "paste" && rest.length > 0) {
    if (!pendingPaste) return host.notice("warning", "No MCP login is waiting for a URL.");
    return pendingPaste(rest.join(" "));
  }
  const connection = manager.connections.get(name);
  if (!connection) return host.notice("warning", `No MCP server named "${name}" is running; /mcp lists them.`);
  host.setActivity(`Logging in to ${name}`);
  try {
    const { loginServer } = await import("../../../core/mcp/oauth-login.ts");
    await loginServer(
      connection.server,
      host.runtime.options.env as NodeJS.ProcessEnv,
      (url) => {
        host.notice("info", `To log in to ${name}, open this URL in a browser:\n${url}`);
        host.notice("info", "With the browser on another machine: /mcp auth paste <the URL it ends on>");
        openBrowser(url);
      },
      () => new Promise<string>((resolve) => (pendingPaste = resolve)),
    );
    host.setActivity(`Connecting to ${name}`);
    await manager.reconnect(name);
    const state = manager.states().find((s) => s.name === name)!;
    host.notice(state.status === "ready" ? "success" : "error", `Logged in. ${stateLine(state, manager.isEnabled(name))}`);
  } catch (error) {
    host.notice("error", describeError(error));
  } finally {
    pendingPaste = undefined;
    host.setActivity(undefined);
  }
}

/** `/mcp`: each server's status; reconnect, enable or disable one for this session; log in to one. */
export const MCP_COMMAND: SlashCommand = {
  name: "mcp",
  description: "MCP servers: status; reconnect, enable, disable or log in to one",
  async run(host: CommandHost, args: string) {
    const manager = await mcpOf(host.runtime)?.start();
    if (!manager) {
      host.notice("info", "No MCP servers configured. Add one with: omp mcp add <name> -- <command> [args…]");
      return;
    }
    const [action, name, ...rest] = args.split(/\s+/).filter(Boolean);
    if (!action) {
      const lines = [...manager.states().map((state) => stateLine(state, manager.isEnabled(state.name))), ...manager.problems];
      if (lines.length === 0) host.notice("info", "No MCP servers.");
      for (const line of lines) host.notice("info", line);
      return;
    }
    if (!name || !ACTIONS.includes(action)) {
      host.notice("warning", `Usage: ${USAGE}`);
      return;
    }
    if (action === "auth") return authServer(host, manager, name, rest);
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
/**
 * The status line's word on the servers: "MCP 1/3 starting…" while some start, "MCP 3" when all
 * are up, "MCP 2/3 (1 failed)" otherwise; undefined before they start or with none configured.
 */
export function mcpStatusText(runtime: Runtime): { text: string; problem: boolean } | undefined {
  const states = mcpOf(runtime)?.current?.states().filter((state) => state.status !== "disabled");
  if (!states || states.length === 0) return undefined;
  const count = (status: ServerState["status"]) => states.filter((state) => state.status === status).length;
  const [ready, starting, failed, auth] = [count("ready"), count("starting"), count("failed"), count("needs-auth")];
  const problems = [...(failed > 0 ? [`${failed} failed`] : []), ...(auth > 0 ? [`${auth} needs auth`] : [])];
  const trouble = problems.length > 0 ? ` (${problems.join(", ")})` : "";
  if (starting > 0) return { text: `MCP ${ready}/${states.length} starting…${trouble}`, problem: problems.length > 0 };
  if (problems.length === 0) return { text: `MCP ${ready}`, problem: false };
  return { text: `MCP ${ready}/${states.length}${trouble}`, problem: true };
}

/** Calls `redraw` when the status line's MCP text changes, and only then: servers notify on every list change. */
export function watchMcpStatus(runtime: Runtime, redraw: () => void): void {
  const source = mcpOf(runtime);
  let shown: string | undefined;
  source?.subscribe(() => {
    const text = mcpStatusText(runtime)?.text;
    if (text === shown) return;
    shown = text;
    redraw();
  });
}
