import { existsSync, readFileSync } from "node:fs";
import { extname } from "node:path";
import { fileURLToPath } from "node:url";
import type { Diagnostic } from "vscode-languageserver-protocol";
import { describeError } from "../errors/omp-error.ts";
import { LspClient, LspError, fileUri } from "./client.ts";
import { type LspServers, loadLspServers, resolveCommand, workspaceRoot } from "./config.ts";
import { canPullDiagnostics, pullDiagnostics } from "./pull-diagnostics.ts";
import type { ServerConfig } from "./server-config.ts";
import type { ServerSandbox } from "../sandbox/servers.ts";
import { isWithin } from "../fs/within.ts";

export interface LspSettings {
  enabled: boolean;
  diagnosticsOnWrite: boolean;
  formatOnWrite: boolean;
  servers: Record<string, unknown>;
}

/**
 * How long a write waits for a warm server's diagnostics, and how long after a server's start its
 * first answers are waited for (a TypeScript server loading a project on a busy 2-core machine
 * takes seconds). A server that hangs costs one write that much once, then the warm wait.
 */
export const WARM_WAIT_MS = 1500;
export const COLD_WAIT_MS = 20_000;
/** A server that dies this often within a minute is not started again this session. */
const MAX_RESTARTS = 3;

export interface ServerStatus {
  name: string;
  root: string;
  command: string;
  state: "starting" | "running" | "failed" | "stopped";
  pid?: number;
  restarts: number;
  openFiles: number;
  detail?: string;
}

interface Slot {
  server: ServerConfig;
  root: string;
  command: string;
  client?: LspClient;
  starting?: Promise<LspClient>;
  /** The process of a start still in its handshake, so that stopping the session can kill it. */
  spawned?: LspClient;
  restarts: number[];
  failure?: string;
}

/** Why no server can take a file: none is known for the extension, or the known ones are not installed. */
export class NoServerError extends LspError {
  /** Nothing to tell a write about: no server is meant for this file (none configured, or not a project). */
  constructor(
    message: string,
    readonly quiet = false,
  ) {
    super(message);
  }
}

/**
 * The session's language servers: one per server and workspace root, started when the model
 * first touches a file of its language, restarted when it dies (up to a limit), stopped with the
 * session. Servers that fail to start are remembered so a write never waits on them twice.
 */
export class LspManager {
  private config: LspServers | undefined;
  private readonly slots = new Map<string, Slot>();
  private stopped = false;

  constructor(
    readonly cwd: string,
    readonly settings: LspSettings,
    private readonly env: NodeJS.ProcessEnv = process.env,
    private readonly sandbox?: ServerSandbox,
  ) {}

  servers(): LspServers {
    return (this.config ??= loadLspServers(this.cwd, this.settings.servers, this.env));
  }

  /** The server configured for `path`'s extension and runnable here, or a NoServerError saying what to install. */
  slotFor(path: string): Slot {
    if (!this.settings.enabled) throw new NoServerError("language servers are off (setting lsp.enabled: false)");
    const ext = extname(path).toLowerCase();
    const candidates = this.servers().servers.filter((server) => !server.isLinter && server.fileTypes.includes(ext));
    if (candidates.length === 0) throw new NoServerError(`no language server is configured for ${ext || "files without an extension"}; add one under lsp.servers in config.yml or in .lsp.json`, true);
    const outside: string[] = [];
    for (const server of candidates) {
      const root = workspaceRoot(server, path, this.cwd);
      if (root === undefined) {
        outside.push(`${server.name} (${server.rootMarkers.join(", ")})`);
        continue;
      }
      const key = `${server.name}\0${root}`;
      const known = this.slots.get(key);
      if (known) return known;
      const command = resolveCommand(server.command, root, this.cwd, this.env);
      if (!command) continue;
      const slot: Slot = { server, root, command, restarts: [] };
      this.slots.set(key, slot);
      return slot;
    }
    if (outside.length === candidates.length) throw new NoServerError(`no project here for a language server of ${ext} files: no root marker in the file's folder or above it up to ${this.cwd} - ${outside.join("; ")}`, true);
    const hints = candidates.map((server) => `${server.name} (${server.command}${server.install ? `: ${server.install}` : ""})`);
    throw new NoServerError(`no language server for ${ext} files is installed; install one of ${hints.join(", ")}, on PATH or in the project's node_modules/.bin`);
  }

  /** The running client for `path`, starting or restarting it. Throws LspError. */
  async client(path: string): Promise<LspClient> {
    if (this.stopped) throw new LspError("the session's language servers are stopped");
    const slot = this.slotFor(path);
    if (slot.client?.alive) return slot.client;
    if (slot.failure) throw new LspError(slot.failure);
    slot.starting ??= this.start(slot);
    return await slot.starting;
  }

  private async start(slot: Slot): Promise<LspClient> {
    try {
      // The project's own program (node_modules/.bin, .venv/bin) is the project's code as much as its config is.
      const confined = slot.server.fromProject || isWithin(slot.command, this.cwd) ? this.sandbox : undefined;
      const client = await LspClient.start(slot.server, slot.root, slot.command, (dead) => this.died(slot, dead), (spawned) => (slot.spawned = spawned), confined);
      slot.client = client;
      // The session ended while it started: it must not outlive the session (nor keep omp running).
      if (this.stopped) await client.stop();
      return client;
    } catch (error) {
      slot.failure = `${slot.server.name} failed to start (${slot.command}): ${describeError(error)}`;
      throw new LspError(slot.failure);
    } finally {
      slot.starting = undefined;
      slot.spawned = undefined;
    }
  }

  /** A server that died is started again on next use, unless it keeps dying. */
  private died(slot: Slot, client: LspClient): void {
    if (slot.client !== client || this.stopped) return;
    const now = Date.now();
    slot.restarts = [...slot.restarts.filter((at) => now - at < 60_000), now];
    if (slot.restarts.length > MAX_RESTARTS) {
      slot.failure = `${slot.server.name} died ${slot.restarts.length} times within a minute (${client.exited})${client.lastStderr() ? `: ${client.lastStderr()}` : ""}; not restarted this session`;
      return;
    }
    // A call that saw it die first may already be starting the next one.
    if (slot.starting) return;
    // Reopen the documents it had, so diagnostics and queries pick up where they were.
    const reopen = [...client.documents.keys()].map((uri) => fileURLToPath(uri));
    slot.starting = this.start(slot);
    slot.starting
      .then(async (fresh) => {
        for (const path of reopen) if (existsSync(path)) await fresh.sync(path, readFileSync(path, "utf8"));
      })
      .catch(() => undefined);
  }

  /** Starts the file's server and opens the file, without waiting: the model read it and may edit it next. */
  touch(path: string): void {
    if (!this.settings.enabled) return;
    (async () => {
      const client = await this.client(path);
      if (existsSync(path)) await client.sync(path, readFileSync(path, "utf8"));
    })().catch(() => undefined);
  }

  /**
   * Sends `path`'s new text and waits (bounded) for the server's diagnostics of it. `before`: the
   * diagnostics the file had, or undefined when the server had not seen the file.
   */
  async diagnose(path: string, text: string, waitMs?: number): Promise<{ client: LspClient; before?: Diagnostic[]; after?: Diagnostic[]; previousText?: string }> {
    const client = await withTimeout(this.client(path), COLD_WAIT_MS, "did not start in time");
    // Asked only of a server that has checked some file already: one still loading the project
    // answers its own first publication sooner than a request queued behind the load (measured).
    const pulls = canPullDiagnostics(client) && client.allDiagnostics().length > 0;
    // The last change's publications may still be coming (the rest of its parts): let them end
    // first, or one of them would pass for this change's answer. Only back-to-back writes wait,
    // and only for a server whose answer is its publication.
    const settle = settleMs(client.server.name);
    for (let i = 0; i < (pulls ? 0 : 4); i++) {
      const last = client.diagnosticsOf(path)?.at ?? 0;
      if (Date.now() - last >= settle) break;
      await Bun.sleep(settle - (Date.now() - last));
    }
    const previous = client.diagnosticsOf(path);
    // Warm: the server has already checked this file once, so its answer comes quickly.
    const warm = previous !== undefined;
    const previousText = client.documents.get(fileUri(path))?.text;
    // The server has this very text checked already: nothing new will be published.
    if (previous && previousText === text) return { client, before: previous.diagnostics, after: previous.diagnostics, previousText };
    const version = await client.sync(path, text);
    // A server already seen to take longer (a busy machine) gets twice its slowest answer, not the usual wait.
    const warmBudget = Math.min(COLD_WAIT_MS, Math.max(WARM_WAIT_MS, 2 * client.slowestAnswerMs));
    const budget = waitMs ?? (warm ? warmBudget : Math.max(WARM_WAIT_MS, COLD_WAIT_MS - (Date.now() - client.startedAt)));
    const asked = Date.now();
    const pulled = pulls ? await pullDiagnostics(client, path, budget) : undefined;
    if (pulled) {
      client.slowestAnswerMs = Math.max(client.slowestAnswerMs, Date.now() - asked);
      client.record(path, version, pulled);
      return { client, before: previous?.diagnostics, after: pulled, previousText };
    }
    const after = await client.waitForDiagnostics(path, previous?.seq ?? 0, version, Math.max(0, budget - (Date.now() - asked)), settle, previous?.diagnostics);
    if (after) client.slowestAnswerMs = Math.max(client.slowestAnswerMs, Date.now() - asked);
    return { client, before: previous?.diagnostics, after, previousText };
  }

  status(): ServerStatus[] {
    return [...this.slots.values()].map((slot) => ({
      name: slot.server.name,
      root: slot.root,
      command: slot.command,
      state: slot.client?.alive ? "running" : slot.starting ? "starting" : slot.failure ? "failed" : "stopped",
      pid: slot.client?.alive ? slot.client.pid : undefined,
      restarts: slot.restarts.length,
      openFiles: slot.client?.documents.size ?? 0,
      ...(slot.failure ? { detail: slot.failure } : {}),
    }));
  }

  /** The running clients, for workspace-wide queries. */
  running(): LspClient[] {
    return [...this.slots.values()].flatMap((slot) => (slot.client?.alive ? [slot.client] : []));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all([...this.slots.values()].map(async (slot) => {
      // A server still in its handshake is not waited for: it may hang there until its warm-up ends.
      slot.spawned?.kill();
      await slot.starting?.catch(() => undefined);
      await slot.client?.stop();
    }));
  }
}

/** How long after a publication a server may still send the rest of a file's diagnostics (see waitForDiagnostics). */
function settleMs(server: string): number {
  return server === "typescript-language-server" ? 250 : 50;
}


export async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([promise, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new LspError(what)), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}
