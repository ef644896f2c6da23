import { OmpError } from "../errors/omp-error.ts";
/**
 * The one way omp runs git. A repository's `.git/config`, hooks and attributes can be written by
 * the model's sandboxed commands, and the git omp runs itself is not sandboxed: so every call
 * here is made with configuration that cannot start a program — no fsmonitor, no hooks, no
 * transport (hence no ssh command or credential helper) unless the caller fetches on purpose,
 * and then none the repository's configuration names ({@link withoutRepositoryPrograms}), no
 * signature check or signing, no pager, no prompt. Content filters, the one door left
 * (`filter.<name>` picked by `.gitattributes`), are switched off by callers that read or write
 * the work tree: {@link GitOptions.withoutFilters}, and the snapshots' private attributes
 * (core/session/checkpoints).
 * Diff drivers (`diff.external`, textconv) run only for porcelain diffs, which omp never runs.
 */

/** What git is told on every call; command-line configuration outranks every file's. */
const SAFE_CONFIG = [
  "core.fsmonitor=false",
  // A folder that cannot exist: no hook is found, whatever the repository or the user configured.
  "core.hooksPath=/dev/null",
  "log.showSignature=false",
  // commit-tree signs with gpg.program when the configuration asks for signed commits.
  "commit.gpgSign=false",
  "core.pager=cat",
  "credential.helper=",
];
/** Local work never reaches a transport: no ssh command, no remote helper, no credential prompt. */
const NO_TRANSPORT = ["protocol.allow=never"];
/**
 * The transports a fetch or push the user asked for may use, whatever the configuration allows:
 * not `ext::` (a command line as a URL), `fd::`, or a remote helper a URL names; git:// only
 * while the repository names no proxy program for it (core.gitProxy, whose first value wins).
 */
const ALLOWED_PROTOCOLS = "file:http:https:ssh";

/** Where a repository is, as the parent environment may say (omp picks its repository itself), and an external diff. */
const LOCATION_VARIABLES = ["GIT_EXTERNAL_DIFF", "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_COMMON_DIR", "GIT_NAMESPACE", "GIT_PREFIX", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT"];

/** The author and committer of omp's own commits (checkpoints, snapshots): one even where none is configured. */
export const OMP_IDENTITY = { GIT_AUTHOR_NAME: "omp", GIT_AUTHOR_EMAIL: "omp@localhost", GIT_COMMITTER_NAME: "omp", GIT_COMMITTER_EMAIL: "omp@localhost" };

export interface GitOptions {
  cwd?: string;
  /** Added to (and overriding) the environment, e.g. GIT_DIR, GIT_INDEX_FILE. */
  env?: Record<string, string>;
  timeoutMs?: number;
  /** A clone or fetch the user asked for: transports allowed (still without prompts). */
  network?: boolean;
  /** More `-c name=value` pairs, after the safe ones. */
  config?: readonly string[];
  /** Written to git's stdin. */
  input?: string;
  /**
   * The call may hash or write work tree files (add, status, apply, checkout, reset): every content
   * filter the configuration defines is emptied first, which costs one more git call.
   */
  withoutFilters?: boolean;
  /** Set by the runner: the repository names a git:// proxy program, so git:// is not allowed. */
  gitProxied?: boolean;
}

export interface GitResult {
  ok: boolean;
  /** False when git could not be started at all (not installed, not on PATH). */
  started: boolean;
  code: number | null;
  out: Buffer;
  err: string;
}

/** The argument vector and environment of one git call made the safe way. */
export function gitCommand(args: readonly string[], options: GitOptions = {}): { argv: string[]; env: Record<string, string | undefined> } {
  const env: Record<string, string | undefined> = { ...process.env };
  for (const name of LOCATION_VARIABLES) delete env[name];
  for (const name of Object.keys(env)) if (/^GIT_CONFIG_(KEY|VALUE)_\d+$/.test(name)) delete env[name];
  Object.assign(env, { GIT_TERMINAL_PROMPT: "0", GIT_OPTIONAL_LOCKS: "0", GIT_ASKPASS: "", SSH_ASKPASS: "", GIT_PAGER: "cat" }, options.network ? { GIT_ALLOW_PROTOCOL: options.gitProxied ? ALLOWED_PROTOCOLS : `${ALLOWED_PROTOCOLS}:git` } : {}, options.env);
  const config = [...SAFE_CONFIG, ...(options.network ? [] : NO_TRANSPORT), ...(options.config ?? [])];
  return { argv: ["git", "--no-pager", ...config.flatMap((pair) => ["-c", pair]), ...args], env };
}

const NOT_STARTED = (error: unknown): GitResult => ({ ok: false, started: false, code: null, out: Buffer.alloc(0), err: error instanceof Error ? error.message : String(error) });

/** A git call whose answer the caller waits for (snapshots: short, bounded by `timeoutMs`). */
export function gitSync(args: readonly string[], options: GitOptions = {}): GitResult {
  let guarded = options;
  if (options.withoutFilters) guarded = unfiltered(guarded, gitSync(FILTER_KEYS, listing(options)));
  if (options.network) guarded = withoutRepositoryPrograms(guarded, gitSync(PROGRAM_KEYS, listing(options)));
  const { argv, env } = gitCommand(options.network ? withGitsPacks(args) : args, guarded);
  try {
    const result = Bun.spawnSync(argv, { cwd: options.cwd, env, stdin: options.input === undefined ? "ignore" : Buffer.from(options.input), stdout: "pipe", stderr: "pipe", ...(options.timeoutMs ? { timeout: options.timeoutMs } : {}) });
    return { ok: result.exitCode === 0, started: true, code: result.exitCode, out: result.stdout, err: result.stderr.toString() };
  } catch (error) {
    return NOT_STARTED(error);
  }
}

/**
 * git's output as text for a caller that cannot go on without it: an OmpError saying what failed
 * (`what`) in git's own words when its exit code is not in `ok`, or that git could not be run.
 */
export function gitText(args: readonly string[], options: GitOptions & { what: string; ok?: readonly number[] }): string {
  const result = gitSync(args, options);
  if (!result.started) throw new OmpError(`${options.what} failed: git could not be run (${result.err}); is git on PATH?`);
  if (!(options.ok ?? [0]).includes(result.code ?? -1)) throw new OmpError(`${options.what} failed: ${result.err.trim() || `git exited ${result.code}`}`);
  return result.out.toString("utf8");
}

/** A git call in the background of other work; killed after `timeoutMs`. */
export async function gitAsync(args: readonly string[], options: GitOptions = {}): Promise<GitResult> {
  let guarded = options;
  if (options.withoutFilters) guarded = unfiltered(guarded, await gitAsync(FILTER_KEYS, listing(options)));
  if (options.network) guarded = withoutRepositoryPrograms(guarded, await gitAsync(PROGRAM_KEYS, listing(options)));
  const { argv, env } = gitCommand(options.network ? withGitsPacks(args) : args, guarded);
  let child: Bun.Subprocess<"ignore", "pipe", "pipe">;
  try {
    child = Bun.spawn(argv, { cwd: options.cwd, env, stdin: options.input === undefined ? "ignore" : Buffer.from(options.input), stdout: "pipe", stderr: "pipe" }) as Bun.Subprocess<"ignore", "pipe", "pipe">;
  } catch (error) {
    return NOT_STARTED(error);
  }
  const timer = options.timeoutMs ? setTimeout(() => child.kill(), options.timeoutMs) : undefined;
  try {
    const [out, err, code] = await Promise.all([new Response(child.stdout).arrayBuffer(), new Response(child.stderr).text(), child.exited]);
    return { ok: code === 0, started: true, code, out: Buffer.from(out), err };
  } finally {
    if (timer) clearTimeout(timer);
  }
}

/** Every content filter's keys; reading configuration runs nothing. */
const FILTER_KEYS = ["config", "-z", "--name-only", "--get-regexp", "^filter\\."];

/** The settings that name a transport's program (ssh, git://'s proxy), with the file each comes from. */
const PROGRAM_KEYS = ["config", "--show-scope", "-z", "--name-only", "--get-regexp", "^core\\.(sshcommand|gitproxy)$"];

/** Reading the configuration the call will see. */
const listing = (options: GitOptions): GitOptions => ({ cwd: options.cwd, env: options.env, timeoutMs: 2_000 });

/**
 * `options` with `-c` pairs that empty every content filter `listed` names
 * (`filter.<name>.clean/smudge/process`, and drop `required`): git then passes the bytes through.
 */
function unfiltered(options: GitOptions, listed: GitResult): GitOptions {
  const names = new Set<string>();
  if (listed.ok) {
    for (const key of listed.out.toString("utf8").split("\0")) {
      const match = /^filter\.(.+)\.[^.]+$/s.exec(key);
      if (match) names.add(match[1]!);
    }
  }
  const config = [...names].flatMap((name) => [`filter.${name}.clean=`, `filter.${name}.smudge=`, `filter.${name}.process=`, `filter.${name}.required=false`]);
  return { ...options, config: [...config, ...(options.config ?? [])] };
}

/**
 * `options` without the programs the repository's own configuration (`.git/config`, which the
 * model's commands may write) names for a transport: its ssh command is put back to plain ssh (a
 * user's own, in their global configuration, stays where the repository sets none), and git:// is
 * not allowed while it names a proxy program.
 */
function withoutRepositoryPrograms(options: GitOptions, listed: GitResult): GitOptions {
  const parts = listed.ok ? listed.out.toString("utf8").split("\0") : [];
  const local = new Set(parts.flatMap((scope, i) => (i % 2 === 0 && (scope === "local" || scope === "worktree") ? [parts[i + 1]] : [])));
  return { ...options, ...(local.has("core.gitproxy") ? { gitProxied: true } : {}), config: [...(local.has("core.sshcommand") ? ["core.sshCommand=ssh"] : []), ...(options.config ?? [])] };
}

/**
 * A fetch or push that runs git's own upload-pack and receive-pack (on this machine for a local
 * remote): `remote.<name>.uploadpack`/`receivepack` could name any program, and the first value
 * git reads wins, so only the command line outranks the repository's.
 */
function withGitsPacks(args: readonly string[]): readonly string[] {
  const [command, ...rest] = args;
  if (command === "fetch" || command === "clone" || command === "ls-remote" || command === "pull") return [command, "--upload-pack=git-upload-pack", ...rest];
  if (command === "push") return [command, "--receive-pack=git-receive-pack", ...rest];
  return args;
}
