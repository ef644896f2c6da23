import { registerUrlReader } from "../tools/internal-urls.ts";
import type { Tool, ToolImplementation, ToolSource } from "../tools/types.ts";
import { rawServers, switchedOff } from "./config-files.ts";
import type { McpConnection } from "./connection.ts";
import type { McpManager, McpManagerOptions } from "./manager.ts";
import { mcpToolName } from "./names.ts";
import { McpPromptCommands, type PromptHost, type PromptServer } from "./prompts.ts";
import { ToolCache, entryKey } from "./tool-cache.ts";
import { resourcesToolParameters } from "./resources-spec.ts" with { type: "macro" };
import { RESOURCES_TOOL_NAME, resourcesDescription, toolDescription, toolEffect, toolParameters } from "./tool-shape.ts";

/** With every tool list cached, servers start this long after start-up at the latest. */
const CACHED_START_DELAY_MS = 500;

/**
 * The MCP servers as a tool source that exists from the first millisecond. Loading the SDK and
 * spawning servers costs tens of milliseconds of CPU (more with several node servers on a busy
 * machine), so neither happens before the first request or frame when it need not:
 * - every tool list cached: the first request carries the cached tools, built here without zod or
 *   the SDK; the servers start shortly after start-up, or at the first call of one of their tools
 *   (which waits for its server), and not at all in a run that ends before either;
 * - some list unknown (headless): the servers start at once and the first request waits for them;
 * - the interactive mode: they start after its first frame and nobody waits.
 */
export class LazyMcpSource implements ToolSource, PromptHost {
  /** The servers' prompts as slash commands, for the command registry. */
  readonly prompts = new McpPromptCommands(this);
  private cachedPrompts: PromptServer[] = [];
  private manager: McpManager | undefined;
  private loading: Promise<McpManager | undefined> | undefined;
  private readonly listeners = new Set<() => void>();
  private readonly cached: Tool[] | undefined;
  private readonly report: (line: string) => void;
  /** `read mcp://<server>/<uri>` reads the servers' resources while this source lives. */
  private readonly unregister: () => void;
  private delayedStart: ReturnType<typeof setTimeout> | undefined;
  /**
   * Set by close: a start asked for later (the delayed one, a late tool load) must not spawn
   * servers nobody will close, which would keep a finished print-mode run alive for ever.
   */
  private closed = false;

  constructor(
    private readonly options: McpManagerOptions & { deferStart?: boolean },
  ) {
    this.report = (line: string) => options.onProblem?.(line);
    this.unregister = registerUrlReader("mcp", async (url, range, context) => {
      const { readMcpResource } = await import("./resource-read.ts");
      const manager = await this.start();
      return readMcpResource({ connections: manager?.connections ?? new Map() }, url, range, context);
    });
    this.cached = this.cachedTools();
    if (options.deferStart) return;
    if (this.cached && options.waitForUncached) this.delayedStart = setTimeout(() => void this.start(), CACHED_START_DELAY_MS).unref();
    else void this.start();
  }

  /**
   * Tools from the cache when every enabled server has a list there; undefined otherwise. Notes
   * the cached prompts of each server that has them on the way.
   */
  private cachedTools(): Tool[] | undefined {
    let raws;
    try {
      const found = rawServers(this.options.cwd, this.options.flagFiles ?? [], this.options.plugins ?? [], this.options.env);
      // A broken file is said before the first request (the manager reports it), not lost to a short run.
      if (found.problems.length > 0) return undefined;
      raws = found.servers;
    } catch {
      return undefined;
    }
    const cache = ToolCache.open(this.options.env);
    const tools: Tool[] = [];
    const names = new Set<string>();
    let complete = true;
    const withResources: string[] = [];
    for (const { name, raw, scope, source } of raws) {
      if (switchedOff(raw)) continue;
      const lists = cache.get({ name, key: entryKey(raw) });
      if (!lists) {
        // A server whose last start failed has no tools to wait for; it is tried again in the background.
        if (cache.lastFailure({ name, key: entryKey(raw) }) === undefined) complete = false;
        continue;
      }
      if (lists.prompts.length > 0) this.cachedPrompts.push({ name, scope, source, prompts: lists.prompts });
      if (lists.resources) withResources.push(name);
      const entry = raw as { enabledTools?: string[]; disabledTools?: string[] };
      for (const info of lists.tools) {
        if (entry.enabledTools && !entry.enabledTools.includes(info.name)) continue;
        if (entry.disabledTools?.includes(info.name)) continue;
        const toolName = mcpToolName(name, info.name);
        if (names.has(toolName)) continue;
        names.add(toolName);
        tools.push({
          name: toolName,
          description: toolDescription(name, info, this.options.limits?.maxDescriptionChars),
          effect: toolEffect(info),
          parameters: toolParameters(info.inputSchema),
          loadMode: "discoverable",
          mcpServer: name,
          load: () => this.liveTool(toolName),
        });
      }
    }
    if (!complete) return undefined;
    // The resource listing, as the live manager offers it once the servers are up.
    if (withResources.length > 0) {
      tools.push({ name: RESOURCES_TOOL_NAME, description: resourcesDescription(withResources), effect: "read", parameters: resourcesToolParameters(), load: () => this.liveTool(RESOURCES_TOOL_NAME) });
    }
    return tools;
  }

  /** A cached tool's code: the live tool of the same name, once its server is known. */
  private async liveTool(name: string): Promise<ToolImplementation> {
    const manager = await this.start();
    const live = manager?.findTool(name);
    if (!live) throw new Error(`the MCP tool ${name} is no longer offered by its server (omp mcp list shows what is)`);
    return live.load();
  }

  /** Loads the SDK and starts the servers (once); resolves with the manager, or undefined when that failed. */
  start(): Promise<McpManager | undefined> {
    if (this.closed && !this.loading) return Promise.resolve(undefined);
    this.loading ??= import("./manager.ts")
      .then(({ McpManager }) => {
        const manager = McpManager.start({ ...this.options, onProblem: this.report });
        this.manager = manager;
        for (const listener of this.listeners) manager.subscribe(listener);
        for (const listener of this.listeners) listener();
        return manager;
      })
      .catch((error: unknown) => {
        this.report(`MCP servers not started: ${(error as Error).message}`);
        return undefined;
      });
    return this.loading;
  }

  /** The manager once started (for /mcp, prompts and `omp mcp`). */
  get current(): McpManager | undefined {
    return this.manager;
  }

  tools(): Tool[] {
    if (this.manager) return this.manager.tools();
    return this.cached ?? [];
  }

  /** Headless runs wait for servers without a cached list; the interactive mode waits for nothing. */
  ready(): Promise<void> {
    if (this.cached || !this.options.waitForUncached) return Promise.resolve();
    return this.start().then((manager) => manager?.ready());
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    const unsubscribe = this.manager?.subscribe(listener);
    return () => {
      this.listeners.delete(listener);
      unsubscribe?.();
    };
  }

  /**
   * Each server's prompts: the live lists once the servers started, the cached ones until then.
   * `/mcp disable` withholds a server's tools from the model, not the prompts the user types.
   */
  servers(): PromptServer[] {
    if (!this.manager) return this.cachedPrompts;
    return [...this.manager.connections.values()].map((c) => ({ name: c.server.name, scope: c.server.scope, source: c.server.source, prompts: c.prompts }));
  }

  async connection(name: string): Promise<McpConnection | undefined> {
    return (await this.start())?.connections.get(name);
  }

  async settled(): Promise<void> {
    await (await this.start())?.started();
  }

  /** Ends the servers, if they were started. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.delayedStart);
    this.unregister();
    await (await this.loading)?.close();
  }
}
