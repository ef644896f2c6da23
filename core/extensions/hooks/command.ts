import { killGroup } from "../../shell/process-group.ts";

export interface HookProcessResult {
  /** null when it was killed. */
  exitCode: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

export interface HookProcessOptions {
  cwd: string;
  env: Record<string, string | undefined>;
  /** The event's JSON, written to the hook's stdin. */
  stdin: string;
  timeoutMs: number;
  signal?: AbortSignal;
  /** An `async` hook: the process does not wait for it to end before exiting. */
  background?: boolean;
}

/**
 * Runs one hook command line through /bin/sh, as Claude Code does (hooks are shell command lines
 * by definition). It gets its own process group, so a hook that hangs at its timeout, or when the
 * run is aborted, is killed with everything it started.
 */
export async function runHookCommand(command: string, options: HookProcessOptions): Promise<HookProcessResult> {
  const proc = Bun.spawn(["/bin/sh", "-c", command], {
    cwd: options.cwd,
    env: options.env,
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
    detached: true,
  });
  let timedOut = false;
  const kill = () => killGroup(proc.pid, "SIGKILL");
  const timer = setTimeout(() => {
    timedOut = true;
    kill();
  }, options.timeoutMs);
  options.signal?.addEventListener("abort", kill, { once: true });
  if (options.background) {
    proc.unref();
    timer.unref();
  }
  try {
    proc.stdin.write(options.stdin);
    await proc.stdin.end();
  } catch {
    // A hook that never reads its stdin may exit before the write; that is its business.
  }
  try {
    const [stdout, stderr] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    return { exitCode: timedOut ? null : proc.exitCode, stdout, stderr, timedOut };
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", kill);
  }
}
