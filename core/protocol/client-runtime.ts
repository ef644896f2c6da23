/**
 * The transport half of the generated client (client-generator.ts), as the source text it puts
 * into the file after the protocol's types: spawning omp, reading its NDJSON frames, matching
 * responses to commands, typed errors, events and approvals. It refers to the generated types by
 * their definition names; the e2e test typechecks the generated file with a user's program.
 */
export const CLIENT_RUNTIME = `/** A command's fields besides its type and id. */
export type CommandParams<T extends RpcCommand["type"]> = Omit<Extract<RpcCommand, { type: T }>, "type" | "id">;

/** What omp sends besides its ready frame and responses: the agent's events, questions and approvals. */
export type RpcEvent = Exclude<RpcFrame, RpcReady | RpcResponse>;
export type RpcEventOf<T extends RpcEvent["type"]> = Extract<RpcEvent, { type: T }>;

/** The answer to an approval (an extension_ui_request): one of its options as \`value\`, or \`cancelled\`. */
export type UiAnswer = Omit<RpcUiResponse, "type" | "id">;

/** A command omp refused or failed: switch on \`kind\`, show \`message\`, try again only when \`retryable\`. */
export class RpcError extends Error {
  readonly kind: ErrorInfo["kind"];
  readonly retryable: boolean;

  constructor(
    readonly command: string,
    readonly info: ErrorInfo,
  ) {
    super(info.message);
    this.name = "RpcError";
    this.kind = info.kind;
    this.retryable = info.retryable;
  }
}

export interface StartOptions {
  /** The omp executable (default: omp on the PATH). */
  command?: string;
  /** Arguments after \`--mode rpc\`, such as ["--model", "anthropic/claude-sonnet-4-5"]. */
  args?: string[];
  cwd?: string;
  /** The whole environment of omp (default: this process's). */
  env?: Record<string, string | undefined>;
}

/** The longest line taken from omp (a long session's get_messages is big, but not this big). */
const MAX_LINE = 256 * 1024 * 1024;
/** How much of omp's stderr is kept, for the error when it stops early. */
const MAX_STDERR = 64 * 1024;

function launch(options: StartOptions): ChildProcessWithoutNullStreams {
  const env = Object.fromEntries(Object.entries(options.env ?? process.env).filter((entry): entry is [string, string] => entry[1] !== undefined));
  return spawn(options.command ?? "omp", ["--mode", "rpc", ...(options.args ?? [])], { cwd: options.cwd, env, stdio: ["pipe", "pipe", "pipe"] });
}

interface Waiter<T> {
  resolve: (value: T) => void;
  reject: (error: Error) => void;
}

/** One omp process spoken to in NDJSON: commands out, responses and events in. */
export class RpcConnection {
  /** The ready frame, once omp is reading commands. */
  readonly ready: Promise<RpcReady>;
  /** omp's exit code, once it has exited. */
  readonly exited: Promise<number>;
  private serial = 0;
  private readonly pending = new Map<string, Waiter<unknown> & { command: string }>();
  private readonly listeners = new Set<(event: RpcEvent) => void>();
  private readonly stopListeners = new Set<(error: Error) => void>();
  private uiHandler: ((request: RpcUiRequest) => UiAnswer | Promise<UiAnswer>) | undefined;
  private stderr = "";
  private stopped: Error | undefined;
  private readyWaiter: Waiter<RpcReady> | undefined;

  protected constructor(private readonly child: ChildProcessWithoutNullStreams) {
    this.ready = new Promise<RpcReady>((resolve, reject) => {
      this.readyWaiter = { resolve, reject };
    });
    this.ready.catch(() => undefined);
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk: string) => {
      this.stderr = (this.stderr + chunk).slice(-MAX_STDERR);
    });
    let buffer = "";
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => {
      buffer += chunk;
      let newline = buffer.indexOf("\\n");
      while (newline !== -1) {
        const line = buffer.slice(0, newline).trim();
        buffer = buffer.slice(newline + 1);
        if (line) this.receive(line);
        newline = buffer.indexOf("\\n");
      }
      if (buffer.length > MAX_LINE) {
        this.stop(new Error(\`omp sent a line longer than \${MAX_LINE} bytes; stopping it\`));
        child.kill();
      }
    });
    child.on("error", (error) => this.stop(error));
    this.exited = new Promise<number>((resolve) => {
      child.on("close", (code, signal) => {
        const why = this.stderr.trim();
        this.stop(new Error(\`omp exited (\${signal ?? \`code \${code}\`})\${why ? \`: \${why}\` : ""}\`));
        resolve(code ?? 128);
      });
    });
  }

  /** Calls \`listener\` with every event; returns the function that stops it. */
  on(listener: (event: RpcEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The next event of \`type\` (that passes \`test\`): ask for it before sending the command that causes it. */
  next<T extends RpcEvent["type"]>(type: T, test: (event: RpcEventOf<T>) => boolean = () => true): Promise<RpcEventOf<T>> {
    return new Promise<RpcEventOf<T>>((resolve, reject) => {
      if (this.stopped) return reject(this.stopped);
      const done = () => {
        off();
        this.stopListeners.delete(fail);
      };
      const fail = (error: Error) => {
        done();
        reject(error);
      };
      const off = this.on((event) => {
        if (event.type !== type || !test(event as RpcEventOf<T>)) return;
        done();
        resolve(event as RpcEventOf<T>);
      });
      this.stopListeners.add(fail);
    });
  }

  /** Answers approvals (extension_ui_request) with \`handler\`; without one they wait, and the run with them. */
  onUiRequest(handler: (request: RpcUiRequest) => UiAnswer | Promise<UiAnswer>): void {
    this.uiHandler = handler;
  }

  /** Sends \`command\` under a fresh id; resolves with its result, rejects with an RpcError. */
  request(command: RpcCommand): Promise<unknown> {
    if (this.stopped) return Promise.reject(this.stopped);
    const id = \`c\${++this.serial}\`;
    return new Promise<unknown>((resolve, reject) => {
      this.pending.set(id, { resolve, reject, command: command.type });
      this.write({ ...command, id });
    });
  }

  /** Rejects, and stops omp, unless it speaks this client's protocol version. */
  protected async checkVersion(): Promise<void> {
    const state = (await this.request({ type: "get_state" } as RpcCommand)) as { protocolVersion?: number };
    if (state.protocolVersion === PROTOCOL_VERSION) return;
    const error = new Error(\`this client speaks omp's protocol version \${PROTOCOL_VERSION}, but omp reports \${state.protocolVersion ?? "none"}: generate the client again with \\\`omp protocol client\\\` of that omp\`);
    this.stop(error);
    this.child.kill();
    throw error;
  }

  /** Closes omp's stdin: it finishes the running prompt and exits; resolves with its exit code. */
  close(): Promise<number> {
    this.child.stdin.end();
    return this.exited;
  }

  private write(frame: RpcCommand | RpcUiResponse): void {
    this.child.stdin.write(\`\${JSON.stringify(frame)}\\n\`);
  }

  private receive(line: string): void {
    let frame: RpcFrame;
    try {
      frame = JSON.parse(line) as RpcFrame;
    } catch {
      return;
    }
    if (frame.type === "ready") return this.readyWaiter?.resolve(frame);
    if (frame.type === "response") {
      const waiter = frame.id === undefined ? undefined : this.pending.get(frame.id);
      if (!waiter || frame.id === undefined) return;
      this.pending.delete(frame.id);
      if (frame.success) waiter.resolve(frame.data);
      else waiter.reject(new RpcError(frame.command, frame.errorInfo));
      return;
    }
    if (frame.type === "extension_ui_request" && this.uiHandler) void this.answer(frame, this.uiHandler);
    for (const listener of [...this.listeners]) listener(frame);
  }

  private async answer(request: RpcUiRequest, handler: (request: RpcUiRequest) => UiAnswer | Promise<UiAnswer>): Promise<void> {
    let answer: UiAnswer;
    try {
      answer = await handler(request);
    } catch {
      answer = { cancelled: true };
    }
    if (!this.stopped) this.write({ type: "extension_ui_response", id: request.id, ...answer });
  }

  private stop(error: Error): void {
    if (this.stopped) return;
    this.stopped = error;
    this.readyWaiter?.reject(error);
    for (const waiter of this.pending.values()) waiter.reject(error);
    this.pending.clear();
    for (const fail of [...this.stopListeners]) fail(error);
  }
}`;
