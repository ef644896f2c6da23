import { closeSync, linkSync, openSync, readFileSync, renameSync, rmSync, writeSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { OmpError } from "../errors/omp-error.ts";

/**
 * One update of a given binary at a time. The lock is a file beside the binary holding the
 * holder's pid; a lock whose holder is dead (killed, crashed, machine rebooted) is broken by the
 * next update, so it can never go stale the way a plain lock file does.
 */

function lockPathFor(target: string): string {
  return join(dirname(target), `.${basename(target)}.update-lock`);
}

export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

function holderOf(path: string): number | null {
  try {
    const pid = Number.parseInt(readFileSync(path, "utf8"), 10);
    return Number.isSafeInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

function tryCreate(path: string): boolean {
  // Written under a private name and linked into place, so the lock never exists without its pid.
  const temp = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}`;
  const fd = openSync(temp, "wx", 0o644);
  try {
    writeSync(fd, `${process.pid}\n`);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(temp, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  } finally {
    rmSync(temp, { force: true });
  }
}

/**
 * Moves a dead holder's lock aside. Renaming is atomic, so of several processes breaking it at
 * once one wins; if what it moved turns out to be a live lock taken in between, it goes back.
 */
function breakStaleLock(path: string, deadPid: number): void {
  const aside = `${path}.stale-${process.pid}-${Math.random().toString(36).slice(2)}`;
  try {
    renameSync(path, aside);
  } catch {
    return;
  }
  if (holderOf(aside) !== deadPid) {
    try {
      linkSync(aside, path);
    } catch {}
  }
  rmSync(aside, { force: true });
}

export interface LockOptions {
  waitMs: number;
  onWait?: (holder: number) => void;
}

/** Runs `body` holding the update lock for `target`; waits for a live holder up to `waitMs`. */
export async function withInstallLock<T>(target: string, options: LockOptions, body: () => Promise<T>): Promise<T> {
  const path = lockPathFor(target);
  const deadline = Date.now() + options.waitMs;
  let told = false;
  for (;;) {
    if (tryCreate(path)) break;
    const holder = holderOf(path);
    if (holder !== null && !processAlive(holder)) {
      breakStaleLock(path, holder);
      continue;
    }
    if (holder !== null && !told) {
      options.onWait?.(holder);
      told = true;
    }
    if (Date.now() > deadline) {
      throw new OmpError(`another omp update (pid ${holder ?? "unknown"}) is still running on ${target}; try again when it has finished, or delete ${path} if no omp update is running`);
    }
    await Bun.sleep(100);
  }
  try {
    return await body();
  } finally {
    if (holderOf(path) === process.pid) rmSync(path, { force: true });
  }
}
