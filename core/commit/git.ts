import { OmpError } from "../errors/omp-error.ts";

/** The longest a git command of `omp commit` may take before it is called stuck (a push waits on the network). */
const GIT_TIMEOUT_MS = 120_000;
/** What one git answer may hold: a staged diff is cut to the model's budget long before this. */
const MAX_OUTPUT_BYTES = 64 * 1024 * 1024;

export interface GitResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs git in `cwd` for `omp commit`. Reads never run the repository's diff programs (`--no-ext-diff`
 * and `--no-textconv` are added by the callers that diff): the diff goes to a model, not to a
 * program the repository names. Throws a clear OmpError when git itself is missing.
 */
export function git(cwd: string, args: string[], options: { input?: string; inheritStdio?: boolean } = {}): GitResult {
  let result: ReturnType<typeof Bun.spawnSync>;
  try {
    result = Bun.spawnSync(["git", ...args], {
      cwd,
      stdin: options.input === undefined ? (options.inheritStdio ? "inherit" : "ignore") : new TextEncoder().encode(options.input),
      stdout: options.inheritStdio ? "inherit" : "pipe",
      stderr: options.inheritStdio ? "inherit" : "pipe",
      timeout: GIT_TIMEOUT_MS,
      maxBuffer: MAX_OUTPUT_BYTES,
      env: { ...process.env, GIT_TERMINAL_PROMPT: options.inheritStdio ? process.env.GIT_TERMINAL_PROMPT : "0" },
    });
  } catch (error) {
    throw new OmpError("git is not installed or not on PATH: omp commit needs it", { cause: error });
  }
  return { code: result.exitCode ?? 1, stdout: result.stdout?.toString() ?? "", stderr: result.stderr?.toString() ?? "" };
}

/** git's output, or an OmpError with git's own words when it failed (an exit code not in `ok`). */
export function gitOut(cwd: string, args: string[], ok: number[] = [0]): string {
  const result = git(cwd, args);
  if (!ok.includes(result.code)) throw new OmpError(`git ${args[0]} failed: ${result.stderr.trim() || `exit ${result.code}`}`);
  return result.stdout;
}
