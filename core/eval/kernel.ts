import { createHash } from "node:crypto";
import { existsSync, mkdirSync, renameSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { OmpError } from "../errors/omp-error.ts";
import type { SandboxPolicy } from "../sandbox/policy.ts";
import { type SpawnedCommand, spawnCommand } from "../shell/spawn.ts";
import jsRunner from "./runner.js" with { type: "text" };
import pyRunner from "./runner.py" with { type: "text" };
import { type KernelFrame, kernelFrame } from "./frames.ts";

export type KernelLanguage = "py" | "js";

/** A frame longer than this (a huge image) ends the kernel rather than filling omp's memory. */
const MAX_FRAME_BYTES = 32 * 1024 * 1024;
/** How long a kernel may take to say it is ready. */
const STARTUP_MS = 20_000;
/** After an interrupt, how long Python gets to stop the cell before the kernel is killed (stuck in C code). */
const INTERRUPT_GRACE_MS = 5_000;

export interface KernelLaunch {
  cwd: string;
  /** The session's command sandbox: the kernel runs the model's code, so it is confined as bash is. */
  sandbox: { policy: SandboxPolicy | undefined; secrets: readonly string[] };
}

export interface CellRun {
  signal: AbortSignal;
  timeoutMs: number;
  /** Each frame of the cell's output as it arrives. */
  onFrame: (frame: KernelFrame) => void;
}

/** How a cell ended: by itself (ok or with an error), or stopped; `killed`: the kernel had to be ended, its state is gone. */
export interface CellEnd {
  status: "ok" | "error";
  stopped?: "timeout" | "abort";
  killed?: boolean;
  /** Why the kernel ended, when it did. */
  reason?: string;
}

/** The runner scripts are written once per content to a temp dir the sandboxed kernel can read. */
function runnerFile(language: KernelLanguage): string {
  const source = language === "py" ? pyRunner : jsRunner;
  const dir = join(tmpdir(), `omp-eval-${createHash("sha256").update(source).digest("hex").slice(0, 16)}`);
  const file = join(dir, language === "py" ? "runner.py" : "runner.js");
  if (!existsSync(file)) {
    mkdirSync(dir, { recursive: true, mode: 0o755 });
    writeFileSync(`${file}.${process.pid}`, source, { mode: 0o644 });
    // Renamed into place: another omp starting a kernel at once never runs half a file.
    renameSync(`${file}.${process.pid}`, file);
  }
  return file;
}

/** The Python to run: the project's virtualenv when there is one, else python3 on PATH. */
export function pythonInterpreter(cwd: string, env: Record<string, string | undefined> = process.env): string | undefined {
  const venvs = [env.VIRTUAL_ENV, join(cwd, ".venv"), join(cwd, "venv")].filter((dir): dir is string => !!dir);
  for (const venv of venvs) if (existsSync(join(venv, "bin", "python3"))) return join(venv, "bin", "python3");
  return Bun.which("python3", { PATH: env.PATH ?? "" }) ?? undefined;
}

function argvFor(language: KernelLanguage, cwd: string): { argv: string[]; env: Record<string, string> } {
  if (language === "js") return { argv: [process.execPath, runnerFile("js")], env: { BUN_BE_BUN: "1" } };
  const python = pythonInterpreter(cwd);
  if (!python) throw new OmpError("Python cells need python3, which is not on PATH. Install it (`omp setup python`), or use a js cell.");
  // Matplotlib's cache goes to the temp dir: the sandbox keeps the home read-only.
  return { argv: [python, "-u", runnerFile("py")], env: { PYTHONUNBUFFERED: "1", PYTHONIOENCODING: "utf-8", MPLBACKEND: "Agg", MPLCONFIGDIR: join(tmpdir(), "omp-eval-matplotlib") } };
}

/**
 * One retained runtime (core/eval/runner.py or runner.js) speaking NDJSON frames over pipes, run
 * like a bash command of the model's: in the session's sandbox and a container that ends all it
 * starts. Cells run one at a time.
 */
export class Kernel {
  private readonly spawned: SpawnedCommand;
  private readonly frames: AsyncGenerator<KernelFrame | undefined>;
  private dead: string | undefined;
  private nextId = 1;
  private queue: Promise<unknown> = Promise.resolve();
  /** The sandbox policy it runs under. */
  readonly policy: SandboxPolicy | undefined;

  private constructor(
    readonly language: KernelLanguage,
    launch: KernelLaunch,
  ) {
    this.policy = launch.sandbox.policy;
    const { argv, env } = argvFor(language, launch.cwd);
    this.spawned = spawnCommand({ command: argv.join(" "), argv, env, cwd: launch.cwd, stdin: true, sandbox: launch.sandbox });
    this.frames = this.readFrames();
    void this.spawned.proc.exited.then((code) => {
      this.dead ??= `exited with code ${code}`;
      this.spawned.container.destroy();
    });
  }

  static async start(language: KernelLanguage, launch: KernelLaunch): Promise<Kernel> {
    const kernel = new Kernel(language, launch);
    const timer = setTimeout(() => kernel.kill("it did not start within 20 s"), STARTUP_MS);
    try {
      const first = await kernel.frames.next();
      if (first.done || first.value?.type !== "ready") {
        throw new OmpError(`The ${language === "py" ? "Python" : "JavaScript"} kernel could not start (${kernel.dead ?? "it said nothing"}); the sandbox may refuse its interpreter.`);
      }
      return kernel;
    } finally {
      clearTimeout(timer);
    }
  }

  get alive(): boolean {
    return this.dead === undefined;
  }

  /** Runs one cell after those already queued; stops it at its timeout or when `signal` aborts (Python is interrupted first, JavaScript killed). */
  execute(code: string, run: CellRun): Promise<CellEnd> {
    // One reader of the frames at a time: cells of callers sharing the kernel wait their turn.
    const next = this.queue.then(() => this.run(code, run));
    this.queue = next.then(
      () => undefined,
      () => undefined,
    );
    return next;
  }

  private async run(code: string, run: CellRun): Promise<CellEnd> {
    if (this.dead) throw new OmpError(`The kernel is gone (${this.dead}).`);
    const id = `c${this.nextId++}`;
    let stopped: CellEnd["stopped"];
    let killed = false;
    let grace: ReturnType<typeof setTimeout> | undefined;
    const stop = (why: "timeout" | "abort") => {
      if (stopped) return;
      stopped = why;
      if (this.language === "js") {
        killed = true;
        this.kill(`the cell was stopped (${why})`);
        return;
      }
      this.send({ type: "interrupt", id });
      grace = setTimeout(() => {
        killed = true;
        this.kill("it did not stop within 5 s of an interrupt");
      }, INTERRUPT_GRACE_MS);
    };
    const timer = setTimeout(() => stop("timeout"), run.timeoutMs);
    const onAbort = () => stop("abort");
    run.signal.addEventListener("abort", onAbort, { once: true });
    if (run.signal.aborted) onAbort();
    try {
      this.send({ id, code });
      for (;;) {
        const next = await this.frames.next();
        if (next.done || !next.value) {
          return { status: "error", ...(stopped ? { stopped } : {}), killed: killed || !stopped, ...(this.dead ? { reason: this.dead } : {}) };
        }
        const frame = next.value;
        if (frame.type === "done" && frame.id === id) return { status: frame.status === "ok" && !stopped ? "ok" : "error", ...(stopped ? { stopped } : {}) };
        if ("id" in frame && frame.id === id) run.onFrame(frame);
      }
    } finally {
      clearTimeout(timer);
      clearTimeout(grace);
      run.signal.removeEventListener("abort", onAbort);
    }
  }

  /** Why it died, once it has. */
  get deathReason(): string | undefined {
    return this.dead;
  }

  kill(reason: string): void {
    this.dead ??= reason;
    this.spawned.container.destroy();
  }

  dispose(): void {
    if (this.dead) return;
    this.send({ type: "exit" });
    this.kill("ended with its session");
  }

  private send(message: unknown): void {
    try {
      this.spawned.proc.stdin?.write(`${JSON.stringify(message)}\n`);
      this.spawned.proc.stdin?.flush();
    } catch {
      // A kernel that died mid-write: its frames end and the cell reports it.
    }
  }

  /** Frames in order; `undefined` once the kernel died or spoke out of protocol. */
  private async *readFrames(): AsyncGenerator<KernelFrame | undefined> {
    const decoder = new TextDecoder();
    let buffer = "";
    for await (const chunk of this.spawned.proc.stdout as ReadableStream<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      let start = 0;
      for (let newline = buffer.indexOf("\n"); newline !== -1; newline = buffer.indexOf("\n", start)) {
        const frame = kernelFrame(buffer.slice(start, newline));
        start = newline + 1;
        if (frame) yield frame;
      }
      buffer = buffer.slice(start);
      if (buffer.length > MAX_FRAME_BYTES) {
        this.kill(`it sent an output frame over ${MAX_FRAME_BYTES / 1024 / 1024} MB`);
        return;
      }
    }
    // Its output ended: it exited (the code comes later, with `exited`) or was killed.
    this.kill("it exited");
  }
}
