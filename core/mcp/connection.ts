import { type WriteStream, createWriteStream, mkdirSync } from "node:fs";
import { dirname } from "node:path";
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  ErrorCode,
  McpError,
  PromptListChangedNotificationSchema,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { describeError } from "../errors/omp-error.ts";
import { displayPath } from "../paths.ts";
import { VERSION } from "../version.ts";
import { type RemoteServerEntry, type ResolvedServer, type StdioServerEntry, isRemote } from "./config-schema.ts";
import { LoginRequired, McpOAuthProvider } from "./oauth.ts";
import { renewingFetch } from "./oauth-refresh.ts";
import { allPages } from "./pages.ts";
import type { McpCallResult } from "./results.ts";
import { BoundedLineBuffer } from "./bounded-lines.ts";
import { resultTooLarge } from "./limits.ts";
import type { CachedServer, McpPromptInfo, McpToolInfo } from "./tool-cache.ts";
import { type ServerSandbox, serverCommand } from "../sandbox/servers.ts";

/** "needs-auth": a remote server answered 401 and has no tokens it takes: `omp mcp login` or `/mcp auth`. */
export type ServerStatus = "starting" | "ready" | "failed" | "needs-auth";

export interface ConnectionOptions {
  env: Record<string, string | undefined>;
  /** Where the server's stderr and protocol errors go. */
  logPath: string;
  startTimeoutMs: number;
  callTimeoutMs: number;
  /** The largest tool result taken (`mcp.maxResultMB`): a bigger one fails that call, not the connection. */
  maxResultBytes: number;
  /** OAuth for a remote server (only servers that answer 401 use it); by default tokens from agent.db. */
  authProvider?: OAuthClientProvider;
  /** Confines a stdio server: given for the ones the project configured. */
  sandbox?: ServerSandbox;
}

export interface CallOptions {
  signal: AbortSignal;
  onProgress?: (text: string) => void;
}

/** No timeout at all, as far as setTimeout can count. */
const NO_TIMEOUT = 2 ** 31 - 1;

/** How long a stdio server may take to exit on its own when omp closes it. */
const CLOSE_GRACE_MS = 300;

class StartTimeout extends Error {}

/**
 * One MCP server through the SDK's Client: connect (with its own start timeout), list its tools
 * and prompts (every page), follow list_changed, call tools with the timeout that progress
 * notifications extend. A stdio server that died is started again on the next call, and an HTTP
 * session the server forgot is opened again; the call is then retried once.
 */
export class McpConnection {
  status: ServerStatus = "starting";
  error: string | undefined;
  tools: McpToolInfo[] = [];
  prompts: McpPromptInfo[] = [];
  hasResources = false;
  /** Called after the status or the lists change. */
  onChange: () => void = () => {};
  private client: Client | undefined;
  private stdio: StdioClientTransport | undefined;
  private connecting: Promise<Client> | undefined;
  private log: WriteStream | undefined;
  private closed = false;
  private refreshing: Promise<void> | undefined;

  constructor(
    readonly server: ResolvedServer,
    private readonly options: ConnectionOptions,
  ) {}

  get logPath(): string {
    return this.options.logPath;
  }

  /** What was last known, for the tool-list cache. */
  snapshot(): CachedServer {
    return { tools: this.tools, prompts: this.prompts, resources: this.hasResources };
  }

  /** Connects and lists; never throws (a failure is the status). */
  async start(): Promise<void> {
    try {
      await this.ensureClient();
    } catch {
      // Recorded in status and error by open().
    }
  }

  private ensureClient(): Promise<Client> {
    if (this.client) return Promise.resolve(this.client);
    this.connecting ??= this.open().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  private writeLog(line: string): void {
    if (!this.log) {
      mkdirSync(dirname(this.options.logPath), { recursive: true, mode: 0o700 });
      this.log = createWriteStream(this.options.logPath, { flags: "a", mode: 0o600 });
      this.log.on("error", () => {});
    }
    this.log.write(`${line}\n`);
  }

  private transport(): Transport {
    const server = this.server;
    if (isRemote(server)) {
      const url = new URL(server.url);
      const requestInit = { headers: server.headers };
      const authProvider = this.options.authProvider ?? new McpOAuthProvider(server as ResolvedServer & RemoteServerEntry, this.options.env as NodeJS.ProcessEnv);
      const options = { requestInit, authProvider, fetch: renewingFetch(authProvider, url) };
      return server.type === "sse" ? new SSEClientTransport(url, options) : new StreamableHTTPClientTransport(url, options);
    }
    // The user's whole environment, as their shell would give it: servers look up PATH entries,
    // proxies and tokens the SDK's short default list leaves out.
    const stdio = server as StdioServerEntry;
    const run = serverCommand([stdio.command, ...stdio.args], { ...this.options.env, ...stdio.env }, this.options.sandbox);
    const transport = new StdioClientTransport({ command: run.argv[0]!, args: run.argv.slice(1), env: run.env, cwd: stdio.cwd, stderr: "pipe" });
    // The SDK's own line buffer closes the transport past 10 MB; this one fails only the call that was too big.
    const limit = this.options.maxResultBytes;
    (transport as unknown as { _readBuffer: BoundedLineBuffer })._readBuffer = new BoundedLineBuffer(limit, (bytes) => resultTooLarge(this.server.name, bytes, limit));
    this.stdio = transport;
    transport.stderr?.on("data", (chunk: Buffer) => this.writeLog(chunk.toString("utf8").replace(/\n$/, "")));
    return transport;
  }

  private async open(): Promise<Client> {
    const server = this.server;
    const was = this.status;
    this.status = "starting";
    this.error = undefined;
    if (was !== "starting") this.onChange();
    this.writeLog(`--- ${new Date().toISOString()} starting ${isRemote(server) ? server.url : [(server as StdioServerEntry).command, ...(server as StdioServerEntry).args].join(" ")}`);
    const client = new Client({ name: "omp", version: VERSION }, { capabilities: {} });
    client.onerror = (error) => this.writeLog(`protocol error: ${describeError(error)}`);
    client.onclose = () => {
      if (this.client !== client) return;
      this.client = undefined;
      this.writeLog(`--- ${new Date().toISOString()} connection closed`);
    };
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => this.track(this.refresh(client, "tools")));
    client.setNotificationHandler(PromptListChangedNotificationSchema, () => this.track(this.refresh(client, "prompts")));
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new StartTimeout()), this.options.startTimeoutMs);
    });
    try {
      await Promise.race([this.handshake(client), deadline]);
      clearTimeout(timer);
      if (this.closed) throw new Error("closed");
      this.client = client;
      this.status = "ready";
      this.writeLog(`ready: ${this.tools.length} tools`);
      this.onChange();
      return client;
    } catch (error) {
      clearTimeout(timer);
      await client.close().catch(() => {});
      // Ended by omp closing it mid-start (the run finished first): not the server's failure.
      if (this.closed) throw new Error("closed while starting", { cause: error });
      this.status = error instanceof LoginRequired ? "needs-auth" : "failed";
      this.error = this.explain(error);
      this.writeLog(`failed: ${this.error}`);
      this.onChange();
      throw new Error(this.error, { cause: error });
    }
  }

  private async handshake(client: Client): Promise<void> {
    const options = { timeout: this.options.startTimeoutMs };
    await client.connect(this.transport(), options);
    const capabilities = client.getServerCapabilities() ?? {};
    this.tools = capabilities.tools ? await listTools(client, options) : [];
    this.prompts = capabilities.prompts ? await listPrompts(client, options) : [];
    this.hasResources = capabilities.resources !== undefined;
  }

  private explain(error: unknown): string {
    const seconds = (this.options.startTimeoutMs / 1000).toFixed(this.options.startTimeoutMs % 1000 === 0 ? 0 : 1);
    if (error instanceof StartTimeout) return `did not start within ${seconds} s (set "startTimeout" in ms in its entry to wait longer)`;
    if (error instanceof LoginRequired) return error.message;
    const text = describeError(error);
    const server = this.server;
    if (!isRemote(server) && /ENOENT|not found in \$PATH/.test(text)) {
      return `cannot run ${JSON.stringify((server as StdioServerEntry).command)}: not found (check "command" and PATH)`;
    }
    return `${text} (log: ${displayPath(this.options.logPath)})`;
  }

  /**
   * A call that made the server change its lists (the notification comes before the call's
   * answer) returns only once the new lists are in, so the model's next step already sees them.
   */
  private track(refresh: Promise<void>): void {
    const all = Promise.all([this.refreshing, refresh]).then(() => {});
    this.refreshing = all;
    void all.then(() => {
      if (this.refreshing === all) this.refreshing = undefined;
    });
  }

  private async refresh(client: Client, what: "tools" | "prompts"): Promise<void> {
    try {
      if (what === "tools") this.tools = await listTools(client, { timeout: this.options.callTimeoutMs });
      else this.prompts = await listPrompts(client, { timeout: this.options.callTimeoutMs });
      this.writeLog(`${what} changed: ${what === "tools" ? this.tools.length : this.prompts.length}`);
      this.onChange();
    } catch (error) {
      this.writeLog(`listing ${what} after list_changed failed: ${describeError(error)}`);
    }
  }

  /** Calls a tool by the server's own name; waits for the connection, reconnecting once when it was lost. */
  async callTool(name: string, args: Record<string, unknown>, options: CallOptions): Promise<McpCallResult> {
    const timeout = this.options.callTimeoutMs === 0 ? NO_TIMEOUT : this.options.callTimeoutMs;
    for (let attempt = 0; ; attempt++) {
      const client = await this.ensureClient();
      try {
        const result = await client.callTool({ name, arguments: args }, undefined, {
          signal: options.signal,
          timeout,
          resetTimeoutOnProgress: true,
          onprogress: (progress) => {
            const total = progress.total === undefined ? "" : `/${progress.total}`;
            options.onProgress?.(`${progress.message ?? "progress"} ${progress.progress}${total}`);
          },
        });
        await this.refreshing;
        // Remote servers' answers arrive whole; they are held to the same limit as stdio ones.
        const size = JSON.stringify(result).length;
        if (size > this.options.maxResultBytes) throw new Error(resultTooLarge(this.server.name, size, this.options.maxResultBytes));
        return result as McpCallResult;
      } catch (error) {
        if (attempt === 0 && !options.signal.aborted && this.lost(client, error)) {
          this.writeLog(`call ${name} lost its connection (${describeError(error)}); reconnecting and retrying once`);
          await this.drop(client);
          continue;
        }
        if (error instanceof LoginRequired) throw await this.loggedOut(client, error);
        // Made by BoundedLineBuffer: the message says it all, without the SDK's "MCP error -32603:" in front.
        if (error instanceof McpError && (error.data as { ompResultTooLarge?: boolean } | undefined)?.ompResultTooLarge) throw new Error(error.message.replace(/^MCP error -?\d+: /, ""));
        if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
          throw new Error(`no answer within ${timeout / 1000} s (OMP_MCP_TIMEOUT_MS or the server's "timeout" in ms allow longer)`);
        }
        throw error;
      }
    }
  }

  /** Runs any request on the live client (prompts, resources), with the same reconnect-once rule. */
  async request<T>(run: (client: Client) => Promise<T>, signal?: AbortSignal): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      const client = await this.ensureClient();
      try {
        return await run(client);
      } catch (error) {
        if (attempt === 0 && !signal?.aborted && this.lost(client, error)) {
          await this.drop(client);
          continue;
        }
        if (error instanceof LoginRequired) throw await this.loggedOut(client, error);
        throw error;
      }
    }
  }

  /**
   * The server stopped taking our tokens mid-session (they expired and the refresh token was
   * refused or revoked): the server needs a new login, which is said once, as its status.
   */
  private async loggedOut(client: Client, error: LoginRequired): Promise<Error> {
    await this.drop(client);
    this.status = "needs-auth";
    this.error = error.message;
    this.writeLog(`needs a new login: ${error.message}`);
    this.onChange();
    return new Error(`MCP server "${this.server.name}" ${error.message}`);
  }

  /** The process died, the connection closed, or the server no longer knows our HTTP session. */
  private lost(client: Client, error: unknown): boolean {
    if (this.client !== client) return true;
    if (error instanceof McpError && error.code === ErrorCode.ConnectionClosed) return true;
    return error instanceof StreamableHTTPError && (error.code === 404 || error.code === 400) && /session/i.test(error.message);
  }

  private async drop(client: Client): Promise<void> {
    if (this.client === client) this.client = undefined;
    await client.close().catch(() => {});
  }

  /** Forgets the connection and starts again (/mcp reconnect). */
  async reconnect(): Promise<void> {
    const client = this.client;
    if (client) await this.drop(client);
    await this.start();
  }

  /**
   * Ends the server. A stdio server gets its stdin closed and a moment to leave, then SIGTERM:
   * the SDK's own close waits up to 4 s for a server that ignores end of input, which would hold
   * omp's exit.
   */
  async close(): Promise<void> {
    this.closed = true;
    const client = this.client;
    this.client = undefined;
    const pid = this.stdio?.pid;
    await Promise.race([client?.close().catch(() => {}), Bun.sleep(CLOSE_GRACE_MS)]);
    if (pid) {
      try {
        process.kill(pid, "SIGTERM");
      } catch {
        // Already gone.
      }
    }
    this.log?.end();
  }
}

async function listTools(client: Client, options: { timeout: number }): Promise<McpToolInfo[]> {
  const tools = await allPages(async (params) => {
    const page = await client.listTools(params, options);
    return { items: page.tools, nextCursor: page.nextCursor };
  });
  return tools.map((tool) => ({
    name: tool.name,
    ...(tool.title ? { title: tool.title } : {}),
    description: tool.description ?? "",
    inputSchema: tool.inputSchema as Record<string, unknown>,
    ...(tool.annotations ? { annotations: tool.annotations } : {}),
  }));
}

async function listPrompts(client: Client, options: { timeout: number }): Promise<McpPromptInfo[]> {
  const prompts = await allPages(async (params) => {
    const page = await client.listPrompts(params, options);
    return { items: page.prompts, nextCursor: page.nextCursor };
  });
  return prompts.map((prompt) => ({
    name: prompt.name,
    description: prompt.description ?? "",
    arguments: (prompt.arguments ?? []).map((a) => ({ name: a.name, description: a.description ?? "", required: a.required ?? false })),
  }));
}
