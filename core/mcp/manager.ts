import { join } from "node:path";
import { describeError } from "../errors/omp-error.ts";
import { configRoot, homeDir } from "../paths.ts";
import type { Tool, ToolSource } from "../tools/types.ts";
import { type McpConfig, loadMcpConfig } from "./config.ts";
import type { PluginServers } from "../plugins/wiring.ts";
import type { ResolvedServer } from "./config-schema.ts";
import { McpConnection, type ServerStatus } from "./connection.ts";
import { mcpTool } from "./mcp-tool.ts";
import { mcpToolName } from "./names.ts";
import { resourcesTool } from "./resources.ts";
import { toToolResult } from "./results.ts";
import { DEFAULT_MCP_LIMITS, type McpLimits } from "./limits.ts";
import { ToolCache } from "./tool-cache.ts";
import type { ServerSandbox } from "../sandbox/servers.ts";
import { projectServerEgress } from "./egress.ts";

export interface McpManagerOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** `--mcp-config` files. */
  flagFiles?: readonly string[];
  plugins?: readonly PluginServers[];
  /**
   * Headless runs: the first request waits for servers with no cached tool list (and no failed
   * start last time), {@link FIRST_REQUEST_WAIT_MS} at most; the rest join later requests when
   * ready. The interactive mode never waits.
   */
  waitForUncached: boolean;
  /** One line each time a server fails (and for each config problem). */
  onProblem?: (line: string) => void;
  /** `mcp.*` settings; the defaults when not given. */
  limits?: McpLimits;
  /** Where the servers the project configured run; undefined: the sandbox is off. */
  sandbox?: ServerSandbox;
}

/**
 * How long a server may take to start when its entry sets no "startTimeout". Servers start in the
 * background, so this is not how long anyone waits: an `npx` server on a loaded machine (or
 * fetching its package) may take this long and still be used once it is up.
 */
const DEFAULT_START_TIMEOUT_MS = 120_000;
/** How long a headless run's first request (and `omp mcp list`) waits for servers still starting. */
export const FIRST_REQUEST_WAIT_MS = 10_000;
const DEFAULT_CALL_TIMEOUT_MS = 60_000;

function envMs(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const text = env[name];
  if (text === undefined || text.trim() === "") return undefined;
  const value = Number(text);
  return Number.isFinite(value) && value >= 0 ? value : undefined;
}

export const mcpLogPath = (server: string) => join(configRoot(homeDir()), "logs", `mcp-${server}.log`);

export interface ServerState {
  name: string;
  status: ServerStatus | "disabled";
  transport: string;
  tools: number;
  error?: string;
  logPath?: string;
  source: string;
}

/** Settles when `promise` settles (fulfilled or not) or once `ms` passed (the timer does not keep the process alive). */
export function atMost(promise: Promise<unknown>, ms: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    timer.unref?.();
    const done = () => {
      clearTimeout(timer);
      resolve();
    };
    // A failed start is reported where it happens; here it only ends the wait (and is never an unhandled rejection).
    promise.then(done, done);
  });
}

/**
 * Every configured MCP server of this process: started together in the background, each on its
 * own; their tools offered to the agent as they become known (from the cache first); one broken
 * server reported in one line and never in the way of the others.
 */
export class McpManager implements ToolSource {
  readonly connections = new Map<string, McpConnection>();
  /** Config and naming problems, one line each (server failures are in each server's state). */
  readonly problems: string[] = [];
  private readonly listeners = new Set<() => void>();
  private readonly cache: ToolCache;
  private readonly readyPromise: Promise<void>;
  private readonly firstStarts: Promise<void>;
  private built: Tool[] | undefined;
  private collisions = new Set<string>();
  /** Servers switched off for this session (/mcp disable): their tools are not offered. */
  private readonly switchedOff = new Set<string>();
  private readonly limits: McpLimits;

  private constructor(
    private readonly options: McpManagerOptions,
    private readonly config: McpConfig,
  ) {
    this.limits = options.limits ?? DEFAULT_MCP_LIMITS;
    this.cache = ToolCache.open(options.env);
    for (const line of config.problems) this.report(line);
    const waits: Promise<void>[] = [];
    const starts: Promise<void>[] = [];
    for (const server of config.servers) {
      const connection = this.connect(server);
      const cached = this.cache.get(server);
      if (cached) Object.assign(connection, { tools: cached.tools, prompts: cached.prompts, hasResources: cached.resources });
      const started = connection.start();
      starts.push(started);
      if (options.waitForUncached && !cached && this.cache.lastFailure(server) === undefined) waits.push(started);
    }
    this.readyPromise = waits.length === 0 ? Promise.resolve() : atMost(Promise.all(waits), FIRST_REQUEST_WAIT_MS);
    this.firstStarts = Promise.all(starts).then(() => {});
  }

  /** Loads the config and starts every enabled server; returns at once. */
  static start(options: McpManagerOptions): McpManager {
    const config = loadMcpConfig({ cwd: options.cwd, flagFiles: options.flagFiles, plugins: options.plugins, env: options.env });
    return new McpManager(options, config);
  }

  private connect(server: ResolvedServer): McpConnection {
    const env = this.options.env;
    const connection = new McpConnection(server, {
      env,
      logPath: mcpLogPath(server.name),
      startTimeoutMs: envMs(env, "OMP_MCP_START_TIMEOUT_MS") ?? server.startTimeout ?? DEFAULT_START_TIMEOUT_MS,
      callTimeoutMs: envMs(env, "OMP_MCP_TIMEOUT_MS") ?? server.timeout ?? DEFAULT_CALL_TIMEOUT_MS,
      maxResultBytes: this.limits.maxResultBytes,
      ...(server.fromProject && this.options.sandbox ? { sandbox: this.options.sandbox } : {}),
    });
    let reported: string | undefined;
    connection.onChange = () => {
      if (connection.status === "ready") {
        this.cache.set(server, connection.snapshot());
        reported = undefined;
      }
      const failed = connection.status === "failed";
      if ((failed || connection.status === "needs-auth") && connection.error !== reported) {
        reported = connection.error;
        // The same failure as last run was said then (`omp mcp list` shows it): not again in every run.
        const known = failed && this.cache.lastFailure(server) === connection.error;
        if (failed) this.cache.setFailed(server, connection.error!);
        if (!known) this.options.onProblem?.(`MCP server "${server.name}" ${failed ? "failed: " : ""}${connection.error}`);
      }
      this.notify();
    };
    this.connections.set(server.name, connection);
    return connection;
  }

  private report(line: string): void {
    this.problems.push(line);
    this.options.onProblem?.(line);
  }

  private notify(): void {
    this.built = undefined;
    for (const listener of this.listeners) listener();
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  ready(): Promise<void> {
    return this.readyPromise;
  }

  /** Every MCP tool, collisions reported and left out, per-server allow and deny lists applied. */
  private allTools(): Tool[] {
    if (this.built) return this.built;
    const tools: Tool[] = [];
    const owner = new Map<string, string>();
    for (const connection of this.connections.values()) {
      const { server } = connection;
      if (this.switchedOff.has(server.name)) continue;
      for (const info of connection.tools) {
        if (server.enabledTools && !server.enabledTools.includes(info.name)) continue;
        if (server.disabledTools?.includes(info.name)) continue;
        const name = mcpToolName(server.name, info.name);
        const first = owner.get(name);
        if (first !== undefined) {
          const line = `MCP tool "${info.name}" of server "${server.name}" is left out: its name ${name} is already taken by ${first}; rename the server or disable one with "disabledTools"`;
          if (!this.collisions.has(line)) {
            this.collisions.add(line);
            this.report(line);
          }
          continue;
        }
        owner.set(name, `"${info.name}" of server "${server.name}"`);
        tools.push(
          mcpTool(name, server.name, info, async (args, context) => {
            const refused = await projectServerEgress(server, name, args, context);
            if (refused) return refused;
            return toToolResult(await connection.callTool(info.name, args, { signal: context.signal, onProgress: context.onUpdate }), server.name);
          },
            this.limits.maxDescriptionChars,
          ),
        );
      }
    }
    const resources = [...this.connections.values()].filter((c) => c.hasResources);
    if (resources.length > 0) tools.push(resourcesTool(resources));
    this.built = tools;
    return tools;
  }

  /** Every tool of the servers (which of them the model is sent at first is the agent's tool discovery's choice). */
  tools(): Tool[] {
    return this.allTools();
  }

  /** A tool by its model-facing name. */
  findTool(name: string): Tool | undefined {
    return this.allTools().find((tool) => tool.name === name);
  }

  /** Resolves once every server's first start ended, ready or failed. */
  started(): Promise<void> {
    return this.firstStarts;
  }

  states(): ServerState[] {
    const live = [...this.connections.values()].map((c) => ({
      name: c.server.name,
      status: c.status,
      transport: c.server.type ?? "stdio",
      tools: c.tools.length,
      ...(c.error ? { error: c.error } : {}),
      logPath: c.logPath,
      source: c.server.source,
    }));
    const off = this.config.disabled.map((s) => ({ name: s.name, status: "disabled" as const, transport: s.type ?? "stdio", tools: 0, source: s.source }));
    return [...live, ...off];
  }

  /** Offers or withholds a server's tools for the rest of this session. */
  setEnabled(name: string, enabled: boolean): void {
    if (!this.connections.has(name)) throw new Error(`no MCP server named "${name}" is running`);
    if (enabled) this.switchedOff.delete(name);
    else this.switchedOff.add(name);
    this.notify();
  }

  isEnabled(name: string): boolean {
    return !this.switchedOff.has(name);
  }

  async reconnect(name: string): Promise<void> {
    const connection = this.connections.get(name);
    if (!connection) throw new Error(`no MCP server named "${name}" is running`);
    await connection.reconnect();
  }

  async close(): Promise<void> {
    await Promise.all([...this.connections.values()].map((c) => c.close().catch((error) => describeError(error))));
  }
}

