import { resolve } from "node:path";
import { jsonSyntaxError } from "../../core/fs/json-syntax.ts";
import { OmpError } from "../../core/errors/omp-error.ts";
import { type WriteScope, WRITE_SCOPES, addServer, removeServer } from "../../core/mcp/config-write.ts";
import { isRemote, type ResolvedServer } from "../../core/mcp/config-schema.ts";
import type { McpManager, ServerState } from "../../core/mcp/manager.ts";
import { displayPath } from "../../core/paths.ts";
import { openBrowser } from "../shared/open-browser.ts";
import { firstLine } from "../shared/stdin-line.ts";
import { writeFdQuietly, writeStdout } from "../shared/write.ts";
import { EXIT_FAILURE, EXIT_USAGE } from "../../core/errors/exit-codes.ts";
import { plural } from "../../core/plural.ts";

export interface McpAddFlags {
  scope?: string;
  transport?: string;
  env?: string[];
  header?: string[];
}

function scopeOf(value: string | undefined): WriteScope {
  if (value === undefined) return "user";
  if ((WRITE_SCOPES as readonly string[]).includes(value)) return value as WriteScope;
  throw new OmpError(`-s ${value}: expected one of ${WRITE_SCOPES.join(", ")}`, { exitCode: EXIT_USAGE });
}

/** `KEY=VALUE` pairs (-e) or `Name: value` headers (-H) as a record; a malformed one is a usage error. */
function pairs(values: string[] | undefined, separator: "=" | ":", flag: string): Record<string, string> {
  const record: Record<string, string> = {};
  for (const value of values ?? []) {
    const at = value.indexOf(separator);
    if (at <= 0) throw new OmpError(`${flag} ${JSON.stringify(value)}: expected ${separator === "=" ? "KEY=VALUE" : '"Name: value"'}`, { exitCode: EXIT_USAGE });
    record[value.slice(0, at).trim()] = value.slice(at + 1).trim();
  }
  return record;
}

/** `omp mcp add [-s scope] [-e K=V] <name> -- <command> [args…]` and `--transport http|sse <name> <url> [-H "K: V"]`. */
export async function runMcpAdd(name: string, target: string, args: string[], flags: McpAddFlags): Promise<number> {
  const scope = scopeOf(flags.scope);
  const transport = flags.transport ?? "stdio";
  let entry: Record<string, unknown>;
  if (transport === "stdio") {
    if (flags.header?.length) throw new OmpError("-H is for --transport http or sse", { exitCode: EXIT_USAGE });
    const env = pairs(flags.env, "=", "-e");
    entry = { command: target, args, ...(Object.keys(env).length > 0 ? { env } : {}) };
  } else if (transport === "http" || transport === "sse") {
    if (args.length > 0) throw new OmpError(`a ${transport} server takes a URL only; got extra arguments ${args.join(" ")}`, { exitCode: EXIT_USAGE });
    const headers = pairs(flags.header, ":", "-H");
    entry = { type: transport, url: target, ...(Object.keys(headers).length > 0 ? { headers } : {}) };
  } else {
    throw new OmpError(`--transport ${transport}: expected stdio, http or sse`, { exitCode: EXIT_USAGE });
  }
  const path = addServer(name, entry, scope, process.cwd());
  await writeStdout(`Added ${transport} MCP server ${name} to ${displayPath(path)}\n`);
  return 0;
}

/** `omp mcp add-json <name> '<json>'`: the entry as Claude Code's `claude mcp add-json` takes it. */
export async function runMcpAddJson(name: string, json: string, flags: { scope?: string }): Promise<number> {
  let entry: unknown;
  try {
    entry = JSON.parse(json);
  } catch (error) {
    throw new OmpError(`the server entry is not valid JSON: ${jsonSyntaxError(json) ?? (error as Error).message}`, { exitCode: EXIT_USAGE });
  }
  if (entry === null || typeof entry !== "object" || Array.isArray(entry)) throw new OmpError("the server entry must be a JSON object", { exitCode: EXIT_USAGE });
  const path = addServer(name, entry as Record<string, unknown>, scopeOf(flags.scope), process.cwd());
  await writeStdout(`Added MCP server ${name} to ${displayPath(path)}\n`);
  return 0;
}

export async function runMcpRemove(name: string, flags: { scope?: string }): Promise<number> {
  const path = removeServer(name, flags.scope === undefined ? undefined : scopeOf(flags.scope), process.cwd());
  await writeStdout(`Removed MCP server ${name} from ${displayPath(path)}\n`);
  return 0;
}

/** Every configured server, connected: list and get report what really happens, not just the file. */
async function connectAll(): Promise<McpManager> {
  const { FIRST_REQUEST_WAIT_MS, McpManager, atMost } = await import("../../core/mcp/manager.ts");
  const { enabledPlugins } = await import("../../core/plugins/enabled.ts");
  const { pluginMcpServers } = await import("../../core/plugins/wiring.ts");
  const cwd = resolve(process.cwd());
  // Installed plugins' servers are listed with the configured ones, as a run starts them.
  const plugins = pluginMcpServers(enabledPlugins(cwd), (line) => process.stderr.write(`omp: ${line}\n`));
  const manager = McpManager.start({ cwd, env: process.env, waitForUncached: true, plugins });
  // A server still starting after the wait is listed as starting rather than holding the listing up.
  await atMost(Promise.all([...manager.connections.values()].map((connection) => connection.start())), FIRST_REQUEST_WAIT_MS);
  return manager;
}

function describeTarget(server: ResolvedServer): string {
  return isRemote(server) ? `${server.url} (${server.type.toUpperCase()})` : [server.command, ...(server as { args: string[] }).args].join(" ");
}

function statusText(state: ServerState): string {
  switch (state.status) {
    case "ready":
      return `✓ connected, ${plural(state.tools, "tool")}`;
    case "failed":
      return `✗ failed: ${state.error}`;
    case "needs-auth":
      return `✗ needs auth: run omp mcp login ${state.name}`;
    case "disabled":
      return "disabled";
    default:
      return "starting";
  }
}

export async function runMcpList(flags: { json?: boolean }): Promise<number> {
  const manager = await connectAll();
  try {
    const states = manager.states();
    if (flags.json) {
      await writeStdout(`${JSON.stringify({ servers: states, problems: manager.problems }, null, 2)}\n`);
      return 0;
    }
    const lines = states.map((state) => {
      const server = manager.connections.get(state.name)?.server;
      return `${state.name}: ${server ? `${describeTarget(server)} - ` : ""}${statusText(state)}`;
    });
    const problems = manager.problems.map((line) => `! ${line}`);
    const text = [...lines, ...problems].join("\n");
    await writeStdout(text ? `${text}\n` : "No MCP servers configured. Add one with: omp mcp add <name> -- <command> [args…]\n");
    return 0;
  } finally {
    await manager.close();
  }
}

export async function runMcpGet(name: string, flags: { json?: boolean }): Promise<number> {
  const manager = await connectAll();
  try {
    const state = manager.states().find((s) => s.name === name);
    const connection = manager.connections.get(name);
    if (!state) throw new OmpError(`no MCP server named "${name}"; omp mcp list shows them`, { exitCode: EXIT_FAILURE });
    const server = connection?.server;
    if (flags.json) {
      await writeStdout(`${JSON.stringify({ ...state, ...(server ? { config: server } : {}), tools: connection?.tools.map((t) => t.name) ?? [] }, null, 2)}\n`);
      return 0;
    }
    const lines = [`${name}:`, `  Source: ${state.source}`, `  Type: ${state.transport}`, `  Status: ${statusText(state)}`];
    if (server && isRemote(server)) {
      lines.push(`  URL: ${server.url}`);
      for (const key of Object.keys(server.headers)) lines.push(`  Header: ${key}: …`);
    } else if (server) {
      const stdio = server as ResolvedServer & { command: string; args: string[]; env: Record<string, string> };
      lines.push(`  Command: ${stdio.command}`, `  Args: ${stdio.args.join(" ")}`);
      for (const key of Object.keys(stdio.env)) lines.push(`  Env: ${key}=…`);
    }
    if (connection && connection.tools.length > 0) lines.push(`  Tools: ${connection.tools.map((t) => t.name).join(", ")}`);
    if (state.logPath) lines.push(`  Log: ${displayPath(state.logPath)}`);
    await writeStdout(`${lines.join("\n")}\n`);
    return 0;
  } finally {
    await manager.close();
  }
}

/** `omp mcp login <name>`: OAuth for a remote server; the tokens go to agent.db. */
export async function runMcpLogin(name: string): Promise<number> {
  const { loadMcpConfig } = await import("../../core/mcp/config.ts");
  const config = loadMcpConfig({ cwd: resolve(process.cwd()), env: process.env });
  const server = config.servers.find((s) => s.name === name);
  if (!server) {
    const problem = config.problems.find((line) => line.includes(`"${name}"`));
    throw new OmpError(problem ?? `no MCP server named "${name}"; omp mcp list shows them`, { exitCode: EXIT_FAILURE });
  }
  const { loginServer } = await import("../../core/mcp/oauth-login.ts");
  // The browser elsewhere (over ssh): the URL it ends on, pasted here, finishes the login too.
  const pasted = () => firstLine(process.stdin.isTTY ? "Or paste the URL the browser ends on here: " : undefined).then((line) => (line === "" ? new Promise<string>(() => {}) : line));
  try {
    const tools = await loginServer(
      server,
      process.env,
      (url) => {
        writeFdQuietly(2, `To log in to ${name}, open this URL in a browser:\n${url}\n`);
        openBrowser(url);
      },
      pasted,
    );
    await writeStdout(`Logged in to ${name}: ${plural(tools, "tool")}.\n`);
    return 0;
  } finally {
    // The pending stdin read would keep the process alive.
    process.stdin.destroy();
  }
}
