import { gitSync, gitText } from "../git/run.ts";
import { OmpError } from "../errors/omp-error.ts";

/** The longest a git command of `omp commit` may take before it is called stuck (a push waits on the network). */
const GIT_TIMEOUT_MS = 120_000;

/**
 * git's output for `omp commit`'s reads (diffs, log, status), run the safe way (core/git/run.ts)
 * with the content filters emptied (a diff against the work tree hashes files through them):
 * nothing the repository configures runs before the user says yes, and diffs are asked with
 * `--no-ext-diff --no-textconv` by the callers.
 */
export function gitOut(cwd: string, args: string[], ok: number[] = [0]): string {
  return gitText(args, { cwd, timeoutMs: GIT_TIMEOUT_MS, what: `git ${args[0]}`, ok, withoutFilters: true });
}

/** Whether a safe git read succeeds (rev-parse checks). */
export function gitOk(cwd: string, args: string[]): boolean {
  return gitSync(args, { cwd, timeoutMs: GIT_TIMEOUT_MS }).ok;
}

/**
 * The commit and the push as the user would type them: their own git, hooks and credential
 * helpers included — `omp commit` commits for the user, on their say-so, like `git commit`.
 */
export function userGit(cwd: string, args: string[], options: { input?: string; inheritStdio?: boolean } = {}): { code: number; output: string } {
  let result: ReturnType<typeof Bun.spawnSync>;
  try {
    result = Bun.spawnSync(["git", ...args], {
      cwd,
      stdin: options.input === undefined ? (options.inheritStdio ? "inherit" : "ignore") : new TextEncoder().encode(options.input),
      stdout: options.inheritStdio ? "inherit" : "pipe",
      stderr: options.inheritStdio ? "inherit" : "pipe",
      timeout: GIT_TIMEOUT_MS,
    });
  } catch (error) {
    throw new OmpError("git could not be run: omp commit needs git on PATH", { cause: error });
  }
  return { code: result.exitCode ?? 1, output: `${result.stdout?.toString() ?? ""}${result.stderr?.toString() ?? ""}` };
}
