import { chmodSync, mkdirSync } from "node:fs";
import { dirname, isAbsolute, join, resolve, sep } from "node:path";

/**
 * Where omp keeps its per-user state. Everything lives under one agent dir so that `OMP_AGENT_DIR`
 * can move all of it at once (tests, sandboxes, several identities on one account).
 */

/**
 * The home directory, as os.homedir() finds it: the environment first. node:os is loaded only
 * when HOME (USERPROFILE on Windows) is unset, because loading it costs half a millisecond of
 * every start-up.
 */
export function homeDir(): string {
  const fromEnv = process.platform === "win32" ? process.env.USERPROFILE : process.env.HOME;
  return fromEnv || (require("node:os") as typeof import("node:os")).homedir();
}

/** The temp directory, as os.tmpdir() finds it, without loading node:os on POSIX. */
export function tempDir(): string {
  if (process.platform === "win32") return (require("node:os") as typeof import("node:os")).tmpdir();
  const dir = process.env.TMPDIR || process.env.TMP || process.env.TEMP || "/tmp";
  return dir.length > 1 && dir.endsWith("/") ? dir.slice(0, -1) : dir;
}

/** `~` and `~/x` against the home directory; anything else unchanged. */
export function expandHome(path: string, home: string = homeDir()): string {
  if (path === "~") return home;
  if (path.startsWith("~/")) return join(home, path.slice(2));
  return path;
}

/** `~/.omp`: the root of omp's files, and the place of the second `.env` omp reads. */
export function configRoot(home: string = homeDir()): string {
  return join(home, ".omp");
}

/**
 * `~/.omp/agent` (the HOME of `env`), or `OMP_AGENT_DIR` — or the original omp's `PI_CODING_AGENT_DIR`, so a home it
 * was pointed at is found — (`~` expanded, a relative path taken from the working directory).
 */
export function agentDir(env: NodeJS.ProcessEnv = process.env): string {
  // A runtime given its own environment keeps its files under that environment's HOME, not the process's.
  const home = env.HOME || homeDir();
  const override = env.OMP_AGENT_DIR || env.PI_CODING_AGENT_DIR;
  if (override) return resolve(expandHome(override, home));
  return join(configRoot(home), "agent");
}

export const globalConfigPath = (env: NodeJS.ProcessEnv = process.env) => join(agentDir(env), "config.yml");
export const globalModelsPath = (env: NodeJS.ProcessEnv = process.env) => join(agentDir(env), "models.yml");
export const agentDbPath = (env: NodeJS.ProcessEnv = process.env) => join(agentDir(env), "agent.db");
export const agentEnvPath = (env: NodeJS.ProcessEnv = process.env) => join(agentDir(env), ".env");
/** The root of the per-project session dirs (`<root>/<encoded cwd>/*.jsonl`). */
export const sessionsRoot = (env: NodeJS.ProcessEnv = process.env) => join(agentDir(env), "sessions");

/** Project files live in `<cwd>/.omp/`; only the working directory itself is looked at, not its parents. */
export const projectConfigPath = (cwd: string) => join(cwd, ".omp", "config.yml");
export const projectModelsPath = (cwd: string) => join(cwd, ".omp", "models.yml");

/**
 * Creates `dir` and any missing parents with mode 0700: the agent dir holds keys and transcripts,
 * which other users on the machine must not read. Existing dirs keep their mode.
 */
export function ensurePrivateDir(dir: string): void {
  const first = mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (first === undefined) return;
  // mkdir's mode is filtered by the umask (0o777 leaves nothing); the dirs made here get 0700 exactly.
  for (let path = resolve(dir); ; path = dirname(path)) {
    chmodSync(path, 0o700);
    if (path === resolve(first) || path === dirname(path)) break;
  }
}

/** `path` with the home directory shown as `~`, for messages. */
export function displayPath(path: string, home: string = homeDir()): string {
  if (!isAbsolute(path)) return path;
  if (path === home) return "~";
  if (path.startsWith(home + sep)) return `~${path.slice(home.length)}`;
  return path;
}
