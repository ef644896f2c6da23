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
  private problemSink: ((line: string) => void) | undefined;
  private readonly heldProblems: string[] = [];

  constructor(options: McpManagerOptions) {
    // Without a sink of its own (the interactive mode), problems wait for the UI to take them.
    const report = (line: string) => {
      if (options.onProblem) options.onProblem(line);
      else if (this.problemSink) this.problemSink(line);
      else this.heldProblems.push(line);
    };
    this.loaded = import("./manager.ts")
      .then(({ McpManager }) => {
        const manager = McpManager.start({ ...options, onProblem: report });
        this.manager = manager;
        for (const listener of this.listeners) manager.subscribe(listener);
        for (const listener of this.listeners) listener();
        return manager;
      })
      .catch((error: unknown) => {
        report(`MCP servers not started: ${(error as Error).message}`);
        return undefined;
      });
  }

  /** Where problem lines go from now on; those reported before are handed over at once. */
  onProblem(sink: (line: string) => void): void {
    this.problemSink = sink;
    for (const line of this.heldProblems.splice(0)) sink(line);
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

  /**
   * `/mcp__<server>__<prompt> args` typed as a prompt: the server prompt's text, or undefined when
   * the text is no such command. A known prefix with an unknown prompt is an error listing them.
   */
  async expandPrompt(text: string): Promise<string | undefined> {
    const match = /^\/(mcp__\S+)(?:\s+([\s\S]*))?$/.exec(text.trim());
    if (!match) return undefined;
    const manager = await this.loaded;
    if (!manager) return undefined;
    let commands = manager.promptCommands();
    if (!commands.some((c) => c.name === match[1])) {
      await Promise.all([...manager.connections.values()].map((connection) => connection.start()));
      commands = manager.promptCommands();
    }
    const command = commands.find((c) => c.name === match[1]);
    if (!command) {
      const known = commands.map((c) => `/${c.name}`).join(", ") || "none";
      throw new Error(`no MCP prompt /${match[1]}; the servers offer: ${known}`);
    }
    return command.expand(match[2] ?? "");
  }

  async close(): Promise<void> {
    await (await this.loaded)?.close();
  }
}
