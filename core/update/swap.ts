import { chmodSync, linkSync, lstatSync, renameSync, rmSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { OmpError, describeError } from "../errors/omp-error.ts";
import { tempDir } from "../paths.ts";
import { processAlive } from "./install-lock.ts";
import { dirNames } from "../fs/dir-names.ts";
import { dropCachedPages } from "../fs/page-cache.ts";
import { fsyncPath } from "../fs/fsync-path.ts";

/**
 * Replacing the installed binary. Files of an update in progress sit beside the target (same
 * filesystem, so renames are atomic) under names that carry the updater's pid, so that a later run
 * can tell the leftovers of a killed update from the work of a live one.
 */

export function stagingName(target: string, what: "new" | "bak" | "dir"): string {
  return join(dirname(target), `.${basename(target)}.${process.pid}.${Math.random().toString(36).slice(2, 8)}.${what}`);
}

/** Entries of `dir` whose name `pattern` matches with a pid (its first group that matched) of a process that is gone, and that we own. */
function deadOnes(dir: string, pattern: RegExp): string[] {
  const names = dirNames(dir);
  const uid = process.getuid?.();
  return names.filter((name) => {
    const pid = pattern.exec(name)?.slice(1).find((group) => group !== undefined);
    if (pid === undefined || processAlive(Number(pid))) return false;
    try {
      return uid === undefined || lstatSync(join(dir, name)).uid === uid;
    } catch {
      return false;
    }
  });
}

/**
 * Removes the staging files of updates whose process is gone, and what a killed install.sh left:
 * its staged binary beside the target (`.omp.install.<pid>`) and its temp dir (`omp-install.<pid>.*`).
 */
export function sweepLeftovers(target: string, temp: string = tempDir()): string[] {
  const prefix = `\\.${basename(target).replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\.`;
  const beside = deadOnes(dirname(target), new RegExp(`^${prefix}(?:(\\d+)\\.[a-z0-9]+\\.(?:new|bak|dir)|install\\.(\\d+))$`));
  const temps = deadOnes(temp, /^omp-install\.(\d+)\.[A-Za-z0-9]+$/);
  const removed: string[] = [];
  for (const [dir, names] of [[dirname(target), beside], [temp, temps]] as const) {
    for (const name of names) {
      rmSync(join(dir, name), { recursive: true, force: true });
      removed.push(dir === temp ? join(temp, name) : name);
    }
  }
  return removed;
}

/** `binary --version`'s version, or why there is none. */
export async function reportedVersion(binary: string): Promise<{ version: string } | { error: string }> {
  try {
    // A clean environment: the smoke run must not pick up a user's OMP_* settings or prompt for anything.
    const child = Bun.spawn([binary, "--version"], {
      stdio: ["ignore", "pipe", "pipe"],
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/" },
      timeout: 30_000,
    });
    const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
    const match = /^omp\/(\S+)\s*$/.exec(stdout);
    if (code === 0 && match) return { version: match[1]! };
    const detail = (stderr || stdout).trim().split("\n")[0] ?? "";
    return { error: `exit ${child.signalCode ?? code}${detail ? `: ${detail}` : ""}` };
  } catch (error) {
    return { error: describeError(error) };
  }
}

async function requireVersion(binary: string, expected: string, what: string): Promise<void> {
  const result = await reportedVersion(binary);
  if ("error" in result) throw new OmpError(`${what} does not run (${result.error})`);
  if (result.version !== expected) throw new OmpError(`${what} reports omp ${result.version}, not the expected ${expected}`);
}

/**
 * Puts `staged` (a verified binary beside `target`) in place of `target`:
 *   1. make it executable, fsync, and run its `--version` before anything is touched;
 *   2. keep the old binary under a second name (a hard link, so `target` itself never goes missing
 *      on POSIX; on Windows a running exe can only be renamed, so it is renamed aside);
 *   3. rename the new one over `target` and fsync the directory;
 *   4. run `target --version`; if it is not the expected version, put the old binary back;
 *   5. drop the new binary's pages from the page cache (core/fs/page-cache.ts), so that its first
 *      runs map no more of it than later ones.
 * A crash at any point leaves either the old or the new binary at `target`, both complete.
 */
export async function swapInBinary(target: string, staged: string, expectedVersion: string): Promise<void> {
  const mode = (() => {
    try {
      return statSync(target).mode & 0o777;
    } catch {
      return 0o755;
    }
  })();
  chmodSync(staged, mode | 0o500);
  fsyncPath(staged);
  await requireVersion(staged, expectedVersion, "the downloaded omp");

  const backup = stagingName(target, "bak");
  if (process.platform === "win32") renameSync(target, backup);
  else linkSync(target, backup);
  try {
    renameSync(staged, target);
    fsyncPath(dirname(target));
    await requireVersion(target, expectedVersion, `the new ${target}`);
  } catch (error) {
    try {
      renameSync(backup, target);
      fsyncPath(dirname(target));
    } catch (restoreError) {
      throw new OmpError(
        `${describeError(error)}; restoring the previous omp also failed (${describeError(restoreError)}): it is at ${backup}, move it back to ${target}`,
      );
    }
    throw new OmpError(`${describeError(error)}; the previous omp was put back`, { cause: error });
  }
  rmSync(backup, { force: true });
  dropCachedPages(target);
}
