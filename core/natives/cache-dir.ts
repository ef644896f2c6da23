import { type Stats, chmodSync, lstatSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { ensurePrivateDir, expandHome, homeDir, tempDir } from "../paths.ts";

export interface CacheRoot {
  /** The natives root; version dirs go beneath it. */
  path: string;
  /** Where the path came from, for `omp doctor`. */
  source: string;
  /** A dir in a shared place that must be ours alone before anything is put below it. */
  privateDir?: string;
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
  return { path: join(homeDir(), ".omp", "natives"), source: "home" };
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
  // tempDir, not node:os: the sandbox launcher's lookup lists these roots on every start-up, and
  // loading node:os costs ~2 ms and its memory there.
  const shared = new Set([tempDir(), "/tmp", "/var/tmp", "/dev/shm"]);
  for (const dir of shared) {
    const privateDir = join(dir, `omp-${uid}`);
    roots.push({ path: join(privateDir, "natives"), source: `per-user dir in ${dir}`, privateDir });
  }
  return roots;
}

/** Why another user could change `stat`'s file, or null when only we (and root) can. */
export function foreignControl(path: string, stat: Stats): string | null {
  const uid = process.getuid?.();
  if (uid !== undefined && stat.uid !== uid) return `${path} belongs to uid ${stat.uid}, not to us (uid ${uid})`;
  if ((stat.mode & 0o022) !== 0) return `${path} is writable by other users (mode ${(stat.mode & 0o777).toString(8)})`;
  return null;
}

/**
 * Creates `dir` (0700, whatever the umask) and checks that it is really ours: a real directory, not
 * a symlink, owned by us. A dir of ours that others may write is made private again; one that
 * belongs to someone else throws, since they could swap the addon between our check and the load.
 */
export function ensureOwnedDir(dir: string): void {
  ensurePrivateDir(dir);
  const stat = lstatSync(dir);
  if (!stat.isDirectory()) throw new Error(`${dir} is not a directory`);
  const problem = foreignControl(dir, stat);
  if (problem === null) return;
  if (stat.uid !== process.getuid?.()) throw new Error(problem);
  chmodSync(dir, stat.mode & 0o755);
}

/**
 * A root others may write without the sticky bit lets them rename our version dir away and put
 * theirs in its place; with the sticky bit (a shared /tmp-like dir) entries stay their owner's.
 */
export function checkSharedRoot(root: string): void {
  let stat: Stats;
  try {
    stat = lstatSync(root);
  } catch {
    return;
  }
  if ((stat.mode & 0o002) !== 0 && (stat.mode & 0o1000) === 0) {
    throw new Error(`${root} is writable by every user and not sticky (mode ${(stat.mode & 0o7777).toString(8)}): anyone could replace the addon; chmod +t it or use another dir`);
  }
}
