import { lstatSync, mkdirSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { isAbsolute, join } from "node:path";

export interface CacheRoot {
  /** The natives root; version dirs go beneath it. */
  path: string;
  /** Where the path came from, for `omp doctor`. */
  source: string;
  /** A dir in a shared place that must be ours alone before anything is put below it. */
  privateDir?: string;
}

function expandHome(path: string): string {
  return path === "~" || path.startsWith("~/") ? join(homedir(), path.slice(1)) : path;
}

/**
 * The configured natives root: `OMP_NATIVES_DIR`, else `$XDG_DATA_HOME/omp/natives` when that
 * variable is set, else `~/.omp/natives`. Throws when `OMP_NATIVES_DIR` is relative, since a root
 * that moves with the working directory would extract the addon again in every project.
 */
export function primaryCacheRoot(env: NodeJS.ProcessEnv = process.env): CacheRoot {
  const explicit = env.OMP_NATIVES_DIR;
  if (explicit) {
    const path = expandHome(explicit);
    if (!isAbsolute(path)) {
      throw new Error(`OMP_NATIVES_DIR must be an absolute path, got ${JSON.stringify(explicit)}`);
    }
    return { path, source: "OMP_NATIVES_DIR" };
  }
  if (env.XDG_DATA_HOME && isAbsolute(env.XDG_DATA_HOME)) {
    return { path: join(env.XDG_DATA_HOME, "omp", "natives"), source: "XDG_DATA_HOME" };
  }
  return { path: join(homedir(), ".omp", "natives"), source: "home" };
}

/**
 * Per-user places to try when the primary root cannot be written or is mounted noexec. Shared
 * temp dirs get a private `omp-<uid>` dir that must be ours, so another user cannot plant an addon.
 */
export function fallbackCacheRoots(env: NodeJS.ProcessEnv = process.env): CacheRoot[] {
  const uid = process.getuid?.() ?? 0;
  const roots: CacheRoot[] = [];
  if (env.XDG_CACHE_HOME && isAbsolute(env.XDG_CACHE_HOME)) {
    roots.push({ path: join(env.XDG_CACHE_HOME, "omp", "natives"), source: "XDG_CACHE_HOME" });
  }
  if (env.XDG_RUNTIME_DIR && isAbsolute(env.XDG_RUNTIME_DIR)) {
    roots.push({ path: join(env.XDG_RUNTIME_DIR, "omp", "natives"), source: "XDG_RUNTIME_DIR" });
  }
  const shared = new Set([tmpdir(), "/tmp", "/var/tmp", "/dev/shm"]);
  for (const dir of shared) {
    const privateDir = join(dir, `omp-${uid}`);
    roots.push({ path: join(privateDir, "natives"), source: `per-user dir in ${dir}`, privateDir });
  }
  return roots;
}

/**
 * Creates `dir` for the current user only and checks that it is really ours: a real directory, not a
 * symlink, owned by us, writable by nobody else.
 */
export function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const stat = lstatSync(dir);
  const uid = process.getuid?.();
  if (!stat.isDirectory()) throw new Error(`${dir} is not a directory`);
  if (uid !== undefined && stat.uid !== uid) throw new Error(`${dir} belongs to uid ${stat.uid}, not to us (uid ${uid})`);
  if ((stat.mode & 0o022) !== 0) throw new Error(`${dir} is writable by other users (mode ${(stat.mode & 0o777).toString(8)})`);
}
