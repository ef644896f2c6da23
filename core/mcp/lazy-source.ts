import type { Tool, ToolSource } from "../tools/types.ts";
import type { McpManager, McpManagerOptions } from "./manager.ts";

/**
 * The MCP servers as a tool source that exists from the first millisecond: the SDK and the
 * manager are imported in the background (tens of milliseconds the rest of start-up does not
 * wait for), and until then there are no tools and the first request's wait covers the import.
 */
export class LazyMcpSource implements ToolSource {
  private manager: McpManager | undefined;
  readonly loaded: Promise<McpManager | undefined>;
  private readonly listeners = new Set<() => void>();

  constructor(options: McpManagerOptions) {
    this.loaded = import("./manager.ts")
      .then(({ McpManager }) => {
        const manager = McpManager.start(options);
        this.manager = manager;
        for (const listener of this.listeners) manager.subscribe(listener);
        for (const listener of this.listeners) listener();
        return manager;
      })
      .catch((error: unknown) => {
        options.onProblem?.(`MCP servers not started: ${(error as Error).message}`);
        return undefined;
      });
  }

  /** The manager once loaded (for /mcp, prompts and `omp mcp`). */
  get current(): McpManager | undefined {
    return this.manager;
  }

  tools(contextWindow: number): Tool[] {
    return this.manager?.tools(contextWindow) ?? [];
  }

  ready(): Promise<void> {
    return this.loaded.then((manager) => manager?.ready());
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    const unsubscribe = this.manager?.subscribe(listener);
    return () => {
      this.listeners.delete(listener);
      unsubscribe?.();
    };
  }

  async close(): Promise<void> {
    await (await this.loaded)?.close();
  }
}
