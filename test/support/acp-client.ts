// An ACP client for end-to-end tests: the official SDK's client side driving `dist/omp acp` over
// stdio, with an editor's files (a map of unsaved buffers) and terminals (real bash processes)
// that record every request the agent makes of them.
import * as acp from "@agentclientprotocol/sdk";
import type { Subprocess } from "bun";
import { OMP, cleanEnv } from "./omp.ts";
import { agentEnv } from "./agent-harness.ts";

export interface AcpClientOptions {
  home: string;
  cwd: string;
  env: Record<string, string | undefined>;
  args?: string[];
  /** Offer fs/* and terminal/* at initialize. */
  editor?: boolean;
}

interface FakeTerminal {
  output: string;
  exit: Promise<{ exitCode: number | null; signal: string | null }>;
  proc: Subprocess;
}

export class AcpClient {
  readonly child: Subprocess<"pipe", "pipe", "pipe">;
  readonly connection: acp.ClientConnection;
  readonly updates: acp.SessionNotification[] = [];
  readonly permissions: acp.RequestPermissionRequest[] = [];
  /** What the agent asked of the editor, in order: "read path", "write path", "terminal command". */
  readonly editorCalls: string[] = [];
  /** Unsaved editor buffers: read_text_file answers from here first. */
  readonly buffers = new Map<string, string>();
  /** Option ids to answer permission requests with, in order; "cancelled" when empty. */
  answers: string[] = [];
  private readonly terminals = new Map<string, FakeTerminal>();
  private waiters: { test: () => boolean; resolve: () => void }[] = [];
  stderr = "";

  constructor(options: AcpClientOptions) {
    this.child = Bun.spawn([OMP, ...(options.args ?? ["acp"])], {
      cwd: options.cwd,
      env: cleanEnv(options.home, agentEnv(options.env)),
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
    });
    void new Response(this.child.stderr).text().then((text) => (this.stderr = text));
    const stdin = this.child.stdin;
    const output = new WritableStream<Uint8Array>({
      write(chunk) {
        stdin.write(chunk);
        stdin.flush();
      },
      close() {
        stdin.end();
      },
    });
    const app = acp
      .client({ name: "omp-test" })
      .onNotification(acp.methods.client.session.update, ({ params }) => {
        this.updates.push(params);
        this.check();
      })
      .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
        this.permissions.push(params);
        this.check();
        const optionId = this.answers.shift();
        return { outcome: optionId ? { outcome: "selected", optionId } : { outcome: "cancelled" } };
      });
    if (options.editor) {
      app
        .onRequest(acp.methods.client.fs.readTextFile, async ({ params }) => {
          this.editorCalls.push(`read ${params.path}`);
          return { content: this.buffers.get(params.path) ?? (await Bun.file(params.path).text()) };
        })
        .onRequest(acp.methods.client.fs.writeTextFile, async ({ params }) => {
          this.editorCalls.push(`write ${params.path}`);
          this.buffers.set(params.path, params.content);
          await Bun.write(params.path, params.content);
          return {};
        })
        .onRequest(acp.methods.client.terminal.create, ({ params }) => {
          this.editorCalls.push(`terminal ${[params.command, ...(params.args ?? [])].join(" ")}`);
          const proc = Bun.spawn([params.command, ...(params.args ?? [])], { cwd: params.cwd ?? undefined, stdout: "pipe", stderr: "pipe" });
          const terminal: FakeTerminal = { output: "", proc, exit: Promise.resolve({ exitCode: null, signal: null }) };
          const read = async (stream: ReadableStream<Uint8Array>) => {
            for await (const chunk of stream) terminal.output += new TextDecoder().decode(chunk);
          };
          terminal.exit = Promise.all([read(proc.stdout), read(proc.stderr), proc.exited]).then(() => ({ exitCode: proc.exitCode, signal: proc.signalCode === null ? null : String(proc.signalCode) }));
          const id = `term_${this.terminals.size + 1}`;
          this.terminals.set(id, terminal);
          return { terminalId: id };
        })
        .onRequest(acp.methods.client.terminal.waitForExit, async ({ params }) => this.terminal(params.terminalId).exit)
        .onRequest(acp.methods.client.terminal.output, async ({ params }) => {
          const terminal = this.terminal(params.terminalId);
          const exit = terminal.proc.exitCode === null && terminal.proc.signalCode === null ? null : await terminal.exit;
          return { output: terminal.output, truncated: false, ...(exit ? { exitStatus: exit } : {}) };
        })
        .onRequest(acp.methods.client.terminal.kill, ({ params }) => {
          this.terminal(params.terminalId).proc.kill();
          return {};
        })
        .onRequest(acp.methods.client.terminal.release, ({ params }) => {
          this.editorCalls.push(`release ${params.terminalId}`);
          this.terminals.delete(params.terminalId);
          return {};
        });
    }
    this.connection = app.connect(acp.ndJsonStream(output, this.child.stdout));
  }

  private terminal(id: string): FakeTerminal {
    const terminal = this.terminals.get(id);
    if (!terminal) throw acp.RequestError.invalidParams({ terminalId: id }, "no such terminal");
    return terminal;
  }

  get agent(): acp.ClientContext {
    return this.connection.agent;
  }

  initialize(editor = true): Promise<acp.InitializeResponse> {
    return this.agent.request(acp.methods.agent.initialize, {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: editor ? { fs: { readTextFile: true, writeTextFile: true }, terminal: true } : {},
    });
  }

  newSession(cwd: string, mcpServers: acp.McpServer[] = []): Promise<acp.NewSessionResponse> {
    return this.agent.request(acp.methods.agent.session.new, { cwd, mcpServers });
  }

  prompt(sessionId: string, text: string): Promise<acp.PromptResponse> {
    return this.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text }] });
  }

  /** The updates of one kind received so far (from `from` on). */
  updatesOf<K extends acp.SessionUpdate["sessionUpdate"]>(kind: K, from = 0): Extract<acp.SessionUpdate, { sessionUpdate: K }>[] {
    return this.updates.slice(from).map((n) => n.update).filter((u): u is Extract<acp.SessionUpdate, { sessionUpdate: K }> => u.sessionUpdate === kind);
  }

  /** The streamed answer text (from update `from` on). */
  text(from = 0): string {
    return this.updatesOf("agent_message_chunk", from).map((u) => (u.content.type === "text" ? u.content.text : "")).join("");
  }

  private check(): void {
    this.waiters = this.waiters.filter((waiter) => {
      if (!waiter.test()) return true;
      waiter.resolve();
      return false;
    });
  }

  /** Resolves once `test` holds (checked on every update and permission request). */
  until(test: () => boolean, timeoutMs = 30_000): Promise<void> {
    if (test()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out; updates: ${JSON.stringify(this.updates.map((u) => u.update.sessionUpdate))}\nstderr: ${this.stderr}`)), timeoutMs);
      this.waiters.push({ test, resolve: () => (clearTimeout(timer), resolve()) });
    });
  }

  async close(): Promise<number> {
    this.child.stdin.end();
    const code = await Promise.race([this.child.exited, Bun.sleep(10_000).then(() => -1)]);
    if (code === -1) this.child.kill();
    return code;
  }
}
