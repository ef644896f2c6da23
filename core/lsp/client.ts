import { type ChildProcess, spawn } from "node:child_process";
import { pathToFileURL } from "node:url";
import type { MessageConnection } from "vscode-jsonrpc/node";
import type { Diagnostic, InitializeResult, PublishDiagnosticsParams, ServerCapabilities } from "vscode-languageserver-protocol";
import { OmpError } from "../errors/omp-error.ts";
import { type ServerSandbox, serverCommand } from "../sandbox/servers.ts";
import { type ServerConfig, initOptionsFor, languageId } from "./server-config.ts";

/** A language server that failed to start, died or did not answer in time. */
export class LspError extends OmpError {}

/** The server died before or while answering: a restarted one may answer the same request. */
export class ServerDiedError extends LspError {}

const STDERR_KEEP = 4096;
const DEFAULT_WARMUP_MS = 30_000;

export const fileUri = (path: string) => pathToFileURL(path).href;

interface OpenDocument {
  version: number;
  text: string;
}

interface DiagnosticsState {
  /** Publications received for the document, so a waiter can tell a new one from an old one. */
  seq: number;
  /** When the last one came (Date.now()). */
  at: number;
  version?: number;
  diagnostics: Diagnostic[];
}

/**
 * One running language server over stdio JSON-RPC (vscode-jsonrpc): the LSP handshake, full-text
 * document sync, the diagnostics it publishes, and requests with a deadline. It never throws from
 * a notification; a dead process fails every pending and later request with LspError.
 */
export class LspClient {
  readonly documents = new Map<string, OpenDocument>();
  private readonly diagnostics = new Map<string, DiagnosticsState>();
  private readonly waiters = new Set<() => void>();
  private stderr = "";
  capabilities: ServerCapabilities = {};
  exited: string | undefined;
  readonly startedAt = Date.now();
  /** The longest this server took to answer a change with its diagnostics: on a loaded machine, far over the usual wait. */
  slowestAnswerMs = 0;

  private constructor(
    readonly server: ServerConfig,
    readonly root: string,
    readonly command: string,
    private readonly child: ChildProcess,
    private readonly connection: MessageConnection,
    onExit: (client: LspClient) => void,
  ) {
    child.stderr?.on("data", (chunk: Buffer) => {
      this.stderr = (this.stderr + chunk.toString("utf8")).slice(-STDERR_KEEP);
    });
    child.on("exit", (code, signal) => {
      this.exited = signal ? `killed by ${signal}` : `exited with code ${code}`;
      connection.dispose();
      for (const wake of this.waiters) wake();
      onExit(this);
    });
    child.on("error", (error) => {
      this.exited = `could not run: ${error.message}`;
    });
    connection.onNotification("textDocument/publishDiagnostics", (params: PublishDiagnosticsParams) => {
      const state = this.diagnostics.get(params.uri) ?? { seq: 0, at: 0, diagnostics: [] };
      this.diagnostics.set(params.uri, { seq: state.seq + 1, at: Date.now(), version: params.version, diagnostics: params.diagnostics });
      for (const wake of this.waiters) wake();
    });
    connection.onRequest("workspace/configuration", (params: { items: { section?: string }[] }) =>
      params.items.map((item) => (item.section ? section(server.settings, item.section) : (server.settings ?? null))),
    );
    connection.onRequest("window/workDoneProgress/create", () => null);
    connection.onRequest("client/registerCapability", () => null);
    connection.onRequest("client/unregisterCapability", () => null);
    connection.onRequest("window/showMessageRequest", () => null);
    // Edits are applied by omp's own write path (the lsp tool), never behind the approval gate's back.
    connection.onRequest("workspace/applyEdit", () => ({ applied: false, failureReason: "omp applies edits itself" }));
    connection.onError(() => undefined);
    connection.listen();
  }

  /** Spawns `command` in `root` and completes the initialize handshake within the server's warm-up time. */
  static async start(server: ServerConfig, root: string, command: string, onExit: (client: LspClient) => void, onSpawn?: (client: LspClient) => void, sandbox?: ServerSandbox): Promise<LspClient> {
    const { createMessageConnection, StreamMessageReader, StreamMessageWriter } = await import("vscode-jsonrpc/node");
    const run = serverCommand([command, ...server.args], { ...process.env, ...server.env }, sandbox);
    const child = spawn(run.argv[0]!, run.argv.slice(1), { cwd: root, stdio: ["pipe", "pipe", "pipe"], env: run.env });
    const connection = createMessageConnection(new StreamMessageReader(child.stdout!), new StreamMessageWriter(child.stdin!));
    const client = new LspClient(server, root, command, child, connection, onExit);
    onSpawn?.(client);
    const spawned = new Promise<void>((resolve, reject) => {
      child.once("spawn", resolve);
      child.once("error", (error) => reject(new LspError(`${server.name}: cannot run ${command}: ${error.message}`)));
    });
    await spawned;
    const result = await client.request<InitializeResult>(
      "initialize",
      {
        // A sandboxed server cannot signal omp (Landlock's scope, or its own PID namespace): told omp's
        // pid, its watchdog's kill(pid, 0) fails and it exits. It ends when its stdin closes instead.
        processId: run.confinement === "none" ? process.pid : null,
        clientInfo: { name: "omp" },
        rootUri: fileUri(root),
        rootPath: root,
        workspaceFolders: [{ uri: fileUri(root), name: root.split("/").pop() || root }],
        initializationOptions: initOptionsFor(server, root),
        capabilities: CLIENT_CAPABILITIES,
      },
      server.warmupTimeoutMs ?? DEFAULT_WARMUP_MS,
    ).catch((error: unknown) => {
      client.kill();
      throw error;
    });
    client.capabilities = result.capabilities ?? {};
    await client.connection.sendNotification("initialized", {});
    if (server.settings) await client.connection.sendNotification("workspace/didChangeConfiguration", { settings: server.settings });
    return client;
  }

  /** False as soon as the process is gone, even before its exit event has been handled. */
  get alive(): boolean {
    return this.exited === undefined && this.child.exitCode === null && this.child.signalCode === null && this.child.stdin?.destroyed !== true;
  }

  /** A notification; a server that died under it is a ServerDiedError, whatever the stream said. */
  private async notify(method: string, params?: unknown): Promise<void> {
    if (!this.alive) throw new ServerDiedError(`${this.server.name} ${this.exited ?? "has exited"}`);
    try {
      await this.connection.sendNotification(method, params);
    } catch (error) {
      if (!this.alive) throw new ServerDiedError(`${this.server.name} ${this.exited ?? "has exited"}`);
      throw error;
    }
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** The server's last words on stderr, for an error message. */
  lastStderr(): string {
    return this.stderr.trim().split("\n").slice(-5).join("\n");
  }

  /** A request that fails with LspError when the server dies or does not answer within `timeoutMs`. */
  async request<T>(method: string, params: unknown, timeoutMs = 10_000): Promise<T> {
    if (!this.alive) throw new ServerDiedError(`${this.server.name} ${this.exited ?? "has exited"}`);
    let timer: ReturnType<typeof setTimeout> | undefined;
    let wake: (() => void) | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new LspError(`${this.server.name} did not answer ${method} within ${(timeoutMs / 1000).toFixed(1)} s`)), timeoutMs);
      wake = () => {
        if (!this.alive) reject(new ServerDiedError(`${this.server.name} ${this.exited} during ${method}${this.lastStderr() ? `: ${this.lastStderr()}` : ""}`));
      };
      this.waiters.add(wake);
    });
    try {
      return await Promise.race([
        (this.connection.sendRequest(method, params) as Promise<T>).catch((error: unknown) => {
          if (!this.alive) throw new ServerDiedError(`${this.server.name} ${this.exited ?? "has exited"} during ${method}`);
          throw error;
        }),
        deadline,
      ]);
    } finally {
      clearTimeout(timer);
      this.waiters.delete(wake!);
    }
  }

  /** Opens `path` with `text`, or sends the new text when it is open already. Returns the document version sent. */
  async sync(path: string, text: string): Promise<number> {
    const uri = fileUri(path);
    const open = this.documents.get(uri);
    if (open && open.text === text) return open.version;
    const version = (open?.version ?? 0) + 1;
    this.documents.set(uri, { version, text });
    if (open) {
      await this.notify("textDocument/didChange", { textDocument: { uri, version }, contentChanges: [{ text }] });
    } else {
      const ext = path.slice(path.lastIndexOf(".")).toLowerCase();
      await this.notify("textDocument/didOpen", { textDocument: { uri, languageId: languageId(this.server, ext), version, text } });
    }
    await this.notify("textDocument/didSave", { textDocument: { uri }, text });
    return version;
  }

  /** The last diagnostics the server published for `path`, or undefined before its first. */
  diagnosticsOf(path: string): { seq: number; at: number; diagnostics: Diagnostic[] } | undefined {
    return this.diagnostics.get(fileUri(path));
  }

  /** Diagnostics the server answered on request (pull-diagnostics.ts), kept as if it had published them. */
  record(path: string, version: number, diagnostics: Diagnostic[]): void {
    const uri = fileUri(path);
    const state = this.diagnostics.get(uri) ?? { seq: 0, at: 0, diagnostics: [] };
    this.diagnostics.set(uri, { seq: state.seq + 1, at: Date.now(), version, diagnostics });
  }

  /** Every file the server has published diagnostics for. */
  allDiagnostics(): [string, Diagnostic[]][] {
    return [...this.diagnostics].map(([uri, state]) => [uri, state.diagnostics]);
  }

  /**
   * The diagnostics published for `path` after publication `afterSeq` (for `version` when the
   * server says which version), or undefined when none came within `timeoutMs` or the server died.
   * Some servers publish a file's diagnostics in parts (typescript-language-server: syntax, then
   * semantic with the old semantic ones still in the first part), so the answer is the last
   * publication once `settleMs` pass without another. A publication whose problems differ from
   * `before` is the new answer, not a repeat of the old one, so it settles 50 ms at most.
   */
  async waitForDiagnostics(path: string, afterSeq: number, version: number, timeoutMs: number, settleMs = 0, before?: Diagnostic[]): Promise<Diagnostic[] | undefined> {
    const uri = fileUri(path);
    const ready = () => {
      const state = this.diagnostics.get(uri);
      return state && state.seq > afterSeq && (state.version === undefined || state.version >= version) ? state : undefined;
    };
    return await new Promise<Diagnostic[] | undefined>((resolve) => {
      let settle: ReturnType<typeof setTimeout> | undefined;
      let seen = 0;
      const finish = () => {
        clearTimeout(timer);
        clearTimeout(settle);
        this.waiters.delete(wake);
        resolve(ready()?.diagnostics);
      };
      const wake = () => {
        const found = ready();
        if (!this.alive) return finish();
        if (!found || found.seq === seen) return;
        seen = found.seq;
        clearTimeout(settle);
        if (settleMs <= 0) return finish();
        const changed = before !== undefined && problemsKey(found.diagnostics) !== problemsKey(before);
        settle = setTimeout(finish, changed ? Math.min(settleMs, 50) : settleMs);
      };
      const timer = setTimeout(finish, timeoutMs);
      this.waiters.add(wake);
      wake();
    });
  }

  /** shutdown and exit, then SIGKILL for a server that ignores them. */
  async stop(): Promise<void> {
    if (!this.alive) return;
    const gone = new Promise<void>((resolve) => this.child.once("exit", () => resolve()));
    try {
      await this.request("shutdown", null, 1000);
      await this.connection.sendNotification("exit");
    } catch {
      // A server that cannot shut down cleanly is killed below.
    }
    const timer = setTimeout(() => this.kill(), 1000);
    await gone;
    clearTimeout(timer);
  }

  kill(): void {
    if (this.alive) this.child.kill("SIGKILL");
  }
}

/** The errors and warnings of a publication, comparable across publications. */
function problemsKey(diagnostics: Diagnostic[]): string {
  return JSON.stringify(diagnostics.filter((d) => (d.severity ?? 1) <= 2).map((d) => [d.range.start.line, d.range.start.character, d.code, d.message]));
}

/** `section` ("python.analysis") of a settings object, as workspace/configuration asks for it. */
function section(settings: Record<string, unknown> | undefined, path: string): unknown {
  let node: unknown = settings;
  for (const key of path.split(".")) node = node && typeof node === "object" ? (node as Record<string, unknown>)[key] : undefined;
  return node ?? null;
}

const CLIENT_CAPABILITIES = {
  general: { positionEncodings: ["utf-16"] },
  textDocument: {
    synchronization: { didSave: true, dynamicRegistration: false },
    publishDiagnostics: { relatedInformation: false, versionSupport: true },
    hover: { contentFormat: ["markdown", "plaintext"] },
    definition: { linkSupport: true },
    references: {},
    documentSymbol: { hierarchicalDocumentSymbolSupport: true },
    rename: { prepareSupport: false },
    formatting: {},
    codeAction: {
      codeActionLiteralSupport: { codeActionKind: { valueSet: ["", "quickfix", "refactor", "refactor.extract", "refactor.inline", "refactor.rewrite", "source", "source.organizeImports", "source.fixAll"] } },
      resolveSupport: { properties: ["edit"] },
    },
  },
  workspace: {
    configuration: true,
    workspaceFolders: true,
    symbol: {},
    workspaceEdit: { documentChanges: true, resourceOperations: [] },
    applyEdit: false,
  },
  window: { workDoneProgress: false },
};
