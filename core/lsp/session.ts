import type { ServerSandbox } from "../sandbox/servers.ts";
import type { LspManager, LspSettings } from "./manager.ts";

/**
 * The session's handle on its language servers, held by the agent and given to tools in their
 * context. It costs nothing until a tool asks: the manager (and with it the config loaders and
 * the JSON-RPC client) is imported on first use, so start-up is unchanged without servers.
 */
export class LspSession {
  private manager: Promise<LspManager> | undefined;

  constructor(
    readonly cwd: string,
    readonly settings: LspSettings,
    private readonly env: NodeJS.ProcessEnv = process.env,
    /** Where servers the project configured run; undefined: the sandbox is off. */
    private readonly sandbox?: ServerSandbox,
  ) {}

  get(): Promise<LspManager> {
    return (this.manager ??= import("./manager.ts").then(({ LspManager }) => new LspManager(this.cwd, this.settings, this.env, this.sandbox)));
  }

  /** Whether any tool has asked for the servers yet. */
  started(): boolean {
    return this.manager !== undefined;
  }

  /** The model read `path`: warm its server up. */
  touch(path: string): void {
    if (this.settings.enabled) void this.get().then((manager) => manager.touch(path));
  }

  /** Stops whatever servers were started; nothing when none was. */
  async stop(): Promise<void> {
    if (this.manager) await (await this.manager).stop();
  }
}
