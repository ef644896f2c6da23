import { OmpError } from "../errors/omp-error.ts";
import { formatBytes } from "../format-bytes.ts";
import { describeEnd, Job, type JobOptions } from "./job.ts";
import { sessionJobs, sessionJobsChanged } from "./session-jobs.ts";

/** Jobs running at once per session: each holds processes, a pipe and a log. */
export const MAX_RUNNING_JOBS = 32;
/** Finished jobs kept for listing and a last read. */
const KEPT_FINISHED = 20;
/** The longest a read may wait, so one call cannot hold the turn for long. */
export const MAX_WAIT_SECONDS = 300;
/** Under a PTY, a read without a pattern waits for the screen to stop changing for this long... */
const SETTLE_QUIET_MS = 150;
/** ...but no longer than this. */
const SETTLE_MAX_MS = 2000;

export interface WaitOptions {
  /** Under a PTY, with no pattern or timeout: wait for the program's answer to start and pause (after a start or keys). */
  expectOutput?: boolean;
  /** A regular expression the new output (the screen, under a PTY) must match. */
  waitFor?: string;
  timeoutSeconds?: number;
  signal?: AbortSignal;
}

export interface ReadResult {
  text: string;
  /** The pattern was given and not seen before the timeout. */
  timedOut: boolean;
}

/** A session's commands: foreground ones while they run, background and PTY jobs until they end or the session does. */
export class JobManager {
  /** Foreground commands while they run, jobs until pruned. */
  private readonly jobs = new Set<Job>();
  private nextId = 1;

  start(options: JobOptions, background: boolean): Job {
    if (this.running().length >= MAX_RUNNING_JOBS) {
      throw new OmpError(`${MAX_RUNNING_JOBS} jobs are already running in this session; kill some with the job tool (action "kill") first.`);
    }
    // Foreground commands get an id only if they become jobs, so the model sees 1, 2, 3.
    const job = new Job(background ? this.nextId++ : 0, options);
    job.background = background;
    // A job's whole output goes to its log (capped), for the model to read or grep later.
    if (background) job.collector.startLog();
    this.jobs.add(job);
    this.changed();
    void job.ended.then(() => {
      this.prune();
      this.changed();
    });
    return job;
  }

  /** Background and PTY jobs (and foreground commands moved to the background), oldest first. */
  list(): Job[] {
    return [...this.jobs.values()].filter((job) => job.background);
  }

  running(): Job[] {
    return [...this.jobs.values()].filter((job) => job.running);
  }

  get(id: number): Job {
    const job = this.list().find((candidate) => candidate.id === id);
    if (!job) {
      const ids = this.list().map((j) => j.id);
      throw new OmpError(`No job ${id}. ${ids.length ? `Jobs: ${ids.join(", ")}.` : "There are no jobs; start one with bash background: true."}`);
    }
    return job;
  }

  /** Marks a foreground command as a job that keeps running (auto-backgrounding, Ctrl+B). */
  toBackground(job: Job): void {
    if (job.background) return;
    job.id = this.nextId++;
    job.collector.startLog();
    job.detach();
    this.changed();
  }

  /** Commands running in the foreground now (the model's bash calls, the user's !commands). */
  foreground(): Job[] {
    return [...this.jobs].filter((job) => job.running && !job.background);
  }

  kill(id: number): Promise<unknown> {
    const job = this.get(id);
    job.stop("kill");
    return job.ended;
  }

  async endAll(): Promise<void> {
    const running = this.running();
    for (const job of running) job.stop("session-end");
    await Promise.all(running.map((job) => job.ended));
  }

  /** A job started, ended or went to the background: front ends redraw (session-jobs.ts). */
  private changed(): void {
    sessionJobsChanged();
  }

  private prune(): void {
    const finished = [...this.jobs.values()].filter((job) => !job.running);
    for (const job of finished.filter((j) => !j.background)) this.jobs.delete(job);
    const jobs = finished.filter((j) => j.background);
    for (const job of jobs.slice(0, Math.max(0, jobs.length - KEPT_FINISHED))) this.jobs.delete(job);
  }

  /**
   * Waits as asked (for a pattern, for the job to end, for a PTY's screen to settle), then returns
   * the job's state and what is new: the output since the last read, or the PTY's screen.
   */
  async read(job: Job, options: WaitOptions = {}): Promise<ReadResult> {
    let pattern: RegExp | undefined;
    if (options.waitFor !== undefined) {
      try {
        pattern = new RegExp(options.waitFor, "m");
      } catch (error) {
        throw new OmpError(`wait_for is not a valid regular expression: ${(error as Error).message}`);
      }
    }
    const timeoutMs = Math.min(options.timeoutSeconds ?? (pattern ? 30 : 0), MAX_WAIT_SECONDS) * 1000;
    let timedOut = false;
    if (pattern) timedOut = !(await waitUntil(job, timeoutMs, options.signal, async () => pattern.test((await job.screen()) ?? job.unread.peek())));
    else if (timeoutMs > 0) await waitUntil(job, timeoutMs, options.signal, async () => false);
    else if (job.options.pty) await settle(job, options.signal, options.expectOutput ?? false);
    return { text: await render(job, timedOut ? options.waitFor : undefined, timeoutMs), timedOut };
  }
}

/** Resolves true once `test` passes (checked at the start and on each output), false at the timeout or when the job ends first. */
function waitUntil(job: Job, timeoutMs: number, signal: AbortSignal | undefined, test: () => Promise<boolean>): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    let done = false;
    let checking = false;
    let again = false;
    const finish = (value: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      unsubscribe();
      signal?.removeEventListener("abort", onAbort);
      resolve(value);
    };
    // Output that arrives while a check runs triggers another, so none is missed.
    const check = async () => {
      if (checking) {
        again = true;
        return;
      }
      checking = true;
      do {
        again = false;
        const ended = !job.running;
        if (await test()) return finish(true);
        if (ended) return finish(false);
      } while (again && !done);
      checking = false;
    };
    const onAbort = () => finish(false);
    const timer = setTimeout(() => finish(false), timeoutMs);
    const unsubscribe = job.onOutput(() => void check());
    signal?.addEventListener("abort", onAbort, { once: true });
    void job.ended.then(() => check());
    void check();
  });
}

/**
 * Under a PTY, a program just started or keys just sent take a moment to show: waits until output
 * pauses (with `expectOutput`, until some came first), the job ends, or SETTLE_MAX_MS.
 */
async function settle(job: Job, signal: AbortSignal | undefined, expectOutput: boolean): Promise<void> {
  const deadline = Date.now() + SETTLE_MAX_MS;
  let last = Date.now();
  let seen = !expectOutput;
  const unsubscribe = job.onOutput(() => {
    last = Date.now();
    seen = true;
  });
  try {
    while (job.running && !signal?.aborted && Date.now() < deadline && (!seen || Date.now() - last < SETTLE_QUIET_MS)) await Bun.sleep(25);
  } finally {
    unsubscribe();
  }
}

async function render(job: Job, missedPattern: string | undefined, waitedMs: number): Promise<string> {
  const lines = [job.summary()];
  if (missedPattern !== undefined) lines.push(`wait_for ${JSON.stringify(missedPattern)} not seen ${job.running ? `within ${waitedMs / 1000}s` : "before the job ended"}.`);
  const screen = await job.screen();
  if (screen !== undefined) {
    job.unread.take();
    lines.push(`--- screen (${job.options.pty!.cols}x${job.options.pty!.rows}) ---`, screen === "" ? "(blank)" : screen);
  } else {
    const { text } = job.unread.take();
    lines.push(text === "" ? "(no new output)" : `--- new output ---\n${text.replace(/\n$/, "")}`);
  }
  if (job.end) {
    const output = job.end.output;
    lines.push(`--- ${describeEnd(job.end)}; ${formatBytes(output.totalBytes)} of output in all${output.logPath ? `, log: ${output.logPath}` : ""} ---`);
  }
  return lines.join("\n");
}

const fallbackOwner = {};

/** The job manager of the session making a call (its agent), or one for calls without a session. */
export function jobsFor(owner: object | undefined): JobManager {
  return sessionJobs(owner ?? fallbackOwner, () => new JobManager());
}
