import { createNumberedLog, type CollectedOutput, OutputCollector } from "./bash-output.ts";
import { type Quarantined, protectedPresent, quarantineCreated, quarantineNote } from "../sandbox/created-protected.ts";
import { formatBytes } from "../format-bytes.ts";
import { killGroup } from "./process-group.ts";
import type { Container } from "./containment.ts";
import { type PtySize, type SpawnCommandOptions, type SpawnedCommand, spawnCommand } from "./spawn.ts";
import type { Screen } from "./screen.ts";
import { UnreadText } from "./unread.ts";

/** Time between SIGTERM and SIGKILL: long enough to flush and clean up, short enough not to stall the turn. */
export const KILL_GRACE_MS = 2000;
/** After the command's first process exits, what is still reading from the pipe gets this long before it is cut. */
const AFTER_EXIT_READ_MS = 300;
/** Output kept for a person watching the job live. */
const RECENT_CHARS = 16_384;

export type StopReason = "timeout" | "abort" | "kill" | "disk-full" | "session-end";

export interface JobOptions {
  command: string;
  cwd: string;
  artifactsDir: string;
  pty?: PtySize;
  /** Keep stdin open for `job write` (background and PTY jobs); a foreground command reads EOF. */
  stdin?: boolean;
  redact?: (text: string) => string;
  maxLogBytes?: number;
  /** The model's commands: sandboxed by the session's policy (see spawn.ts). */
  sandbox?: SpawnCommandOptions["sandbox"];
}

export interface JobInfo {
  id: number;
  command: string;
  pid: number;
  pty: boolean;
  running: boolean;
  /** "running", "exited with code 0", "killed", ... */
  state: string;
  exitCode: number | null;
  startedAt: string;
  outputBytes: number;
  logPath?: string;
}

export interface JobEnd {
  exitCode: number | null;
  signal: string | null;
  stopReason?: StopReason;
  /** Processes still running when the command's first process exited; they were ended. */
  leftBehind: number;
  output: CollectedOutput;
  durationMs: number;
  /** Protected paths the sandboxed command made where none were, moved into quarantine as it ended. */
  quarantined: Quarantined[];
}

/**
 * One command omp started: its processes (in a container, see containment.ts), its output (the
 * capped log, what the model has not read yet and, under a PTY, the rendered screen) and its end.
 */
export class Job {
  readonly startedAt = Date.now();
  readonly collector: OutputCollector;
  readonly unread = new UnreadText();
  /** Resolves once every process is gone and the output is complete. */
  readonly ended: Promise<JobEnd>;
  end: JobEnd | undefined;
  private readonly container: Container;
  /** The protected paths present when a sandboxed command started: any other it makes is quarantined at its end. */
  private readonly protectedBefore: ReadonlySet<string> | undefined;
  /** How the sandbox confines it ("none": not at all). */
  readonly confinement: SpawnedCommand["confinement"];
  private readonly proc: ReturnType<typeof spawnCommand>["proc"];
  private stopReason: StopReason | undefined;
  private killTimer: ReturnType<typeof setTimeout> | undefined;
  private killDeadline = 0;
  private readonly listeners = new Set<(text: string) => void>();
  private screenPromise: Promise<Screen> | undefined;
  /** The latest output, for a person watching the job (the model reads through `unread`). */
  private recent = "";
  /** The model backgrounded it (or was told it runs on): the job tool lists it. */
  background = false;
  /** Resolves when a foreground command is sent to the background (auto-backgrounding, Ctrl+B). */
  readonly backgrounded: Promise<"background">;
  private markBackgrounded!: () => void;

  constructor(
    /** 0 until it is a job the model can name. */
    public id: number,
    readonly options: JobOptions,
  ) {
    this.collector = new OutputCollector(() => createNumberedLog(options.artifactsDir, "bash"), undefined, options.redact, {
      maxLogBytes: options.maxLogBytes,
      onDiskFull: () => this.stop("disk-full"),
    });
    this.protectedBefore = options.sandbox?.policy ? protectedPresent(options.sandbox.policy) : undefined;
    const spawned = spawnCommand({ command: options.command, cwd: options.cwd, pty: options.pty, stdin: options.stdin ?? false, ...(options.sandbox ? { sandbox: options.sandbox } : {}) });
    this.confinement = spawned.confinement;
    this.proc = spawned.proc;
    this.container = spawned.container;
    if (options.pty) this.screenPromise = import("./screen.ts").then((module) => module.createScreen(options.pty!));
    this.backgrounded = new Promise((resolve) => (this.markBackgrounded = () => resolve("background")));
    this.ended = this.run();
  }

  /** Called by the job manager when the command becomes a job; its caller stops waiting for it. */
  detach(): void {
    this.background = true;
    this.markBackgrounded();
  }

  get pid(): number {
    return this.proc.pid;
  }

  get command(): string {
    return this.options.command;
  }

  get running(): boolean {
    return this.end === undefined;
  }

  /** Called with each piece of decoded output; returns an unsubscribe function. */
  onOutput(listener: (text: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private async run(): Promise<JobEnd> {
    const reader = this.proc.stdout.getReader();
    const pump = (async () => {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        const text = this.collector.push(value);
        this.unread.push(text);
        this.recent = (this.recent + text).slice(-RECENT_CHARS);
        if (this.screenPromise) (await this.screenPromise).write(value);
        for (const listener of this.listeners) listener(text);
      }
    })();
    await this.proc.exited;
    // Everything the command left running ends with it: a server it backgrounded, a setsid escape.
    const leftBehind = this.container.pids().length;
    if (this.stopReason) await this.graceThenKill();
    this.container.destroy();
    clearTimeout(this.killTimer);
    // A cleared timer, not Bun.sleep: a pending sleep would hold the event loop, and so an `omp -p` whose last call was bash, for its full length.
    let cut: ReturnType<typeof setTimeout> | undefined;
    const slept = new Promise<"slept">((resolve) => (cut = setTimeout(() => resolve("slept"), AFTER_EXIT_READ_MS)));
    const drained = await Promise.race([pump, slept]);
    clearTimeout(cut);
    if (drained === "slept") {
      // Without a cgroup, something that cleared its environment may still hold the pipe.
      await reader.cancel();
      await pump.catch(() => {});
    }
    const policy = this.options.sandbox?.policy;
    const quarantined = policy && this.protectedBefore && this.confinement !== "none" ? quarantineCreated(policy, this.protectedBefore, this.options.artifactsDir) : [];
    // A job the model left running hears of it with its next read; a foreground command in its result.
    if (quarantined.length > 0 && this.background) this.unread.push(`\n${quarantineNote(quarantined)}\n`);
    this.end = {
      exitCode: this.proc.exitCode,
      signal: this.proc.signalCode === null ? null : String(this.proc.signalCode),
      ...(this.stopReason ? { stopReason: this.stopReason } : {}),
      leftBehind,
      output: this.collector.finish(),
      durationMs: Date.now() - this.startedAt,
      quarantined,
    };
    for (const listener of this.listeners) listener("");
    return this.end;
  }

  /** Children may outlive the first process after SIGTERM: they get what is left of the grace period. */
  private async graceThenKill(): Promise<void> {
    while (this.container.pids().length > 0 && Date.now() < this.killDeadline) await Bun.sleep(50);
  }

  /** SIGTERM to every process of the job, SIGKILL to all of them after the grace period. */
  stop(reason: StopReason): void {
    if (this.stopReason || this.end) return;
    this.stopReason = reason;
    this.killDeadline = Date.now() + (reason === "disk-full" ? 0 : KILL_GRACE_MS);
    this.container.signal("SIGTERM");
    killGroup(this.proc.pid, "SIGTERM");
    // The first process may ignore SIGTERM (trap '' TERM), in which case it never exits on its own.
    this.killTimer = setTimeout(() => this.container.destroy(), reason === "disk-full" ? 0 : KILL_GRACE_MS);
  }

  /** The last few KB of output as text (for a PTY job, the raw stream; see `screen`). */
  get recentOutput(): string {
    return this.recent;
  }

  /** Sends bytes to the command's stdin (its terminal, under a PTY). */
  write(data: string): void {
    const stdin = this.proc.stdin;
    if (!stdin || typeof stdin === "number") throw new Error("this job has no stdin");
    stdin.write(data);
    stdin.flush();
  }

  /** Under a PTY, whether arrows must be sent in application mode (see Screen). */
  async applicationCursor(): Promise<boolean> {
    return this.screenPromise ? (await this.screenPromise).applicationCursor() : false;
  }

  /** Under a PTY: the terminal's visible text, once what arrived so far is drawn. */
  async screen(): Promise<string | undefined> {
    if (!this.screenPromise) return undefined;
    return (await this.screenPromise).text();
  }

  /** For rpc's get_jobs and other front ends. */
  info(): JobInfo {
    return {
      id: this.id,
      command: this.command,
      pid: this.pid,
      pty: this.options.pty !== undefined,
      running: this.running,
      state: this.end ? describeEnd(this.end) : "running",
      exitCode: this.end?.exitCode ?? null,
      startedAt: new Date(this.startedAt).toISOString(),
      outputBytes: this.collector.bytes,
      ...(this.end?.output.logPath ? { logPath: this.end.output.logPath } : {}),
    };
  }

  /** One line for listings: id, state, age, output size and command. */
  summary(): string {
    const seconds = ((this.end ? this.end.durationMs : Date.now() - this.startedAt) / 1000).toFixed(1);
    const state = this.end ? describeEnd(this.end) : "running";
    const command = this.command.length > 80 ? `${this.command.slice(0, 79)}…` : this.command;
    return `job ${this.id} ${state} · ${seconds}s · ${formatBytes(this.collector.bytes)}${this.options.pty ? " · pty" : ""} · ${command.replaceAll("\n", " ")}`;
  }
}

export function describeEnd(end: JobEnd): string {
  switch (end.stopReason) {
    case "timeout":
      return "timed out (killed)";
    case "abort":
      return "aborted (killed)";
    case "kill":
      return "killed";
    case "disk-full":
      return "ended: disk full";
    case "session-end":
      return "ended with the session";
  }
  if (end.signal) return `killed by ${end.signal}`;
  return `exited with code ${end.exitCode}`;
}
