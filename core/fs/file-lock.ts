import { closeSync, linkSync, openSync, readFileSync, renameSync, rmSync, writeSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { OmpError } from "../errors/omp-error.ts";

/**
 * A cross-process lock: a file holding the holder's pid. A lock whose holder is dead (killed,
 * crashed, machine rebooted) is broken by the next taker, so it can never go stale the way a plain
 * lock file does. Used wherever two omp processes could both read-modify-write one state file
 * (config set, plugin state, an update of one binary).
 */

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
  const fd = openSync(temp, "wx", 0o600);
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

export interface FileLockOptions {
  waitMs: number;
  /** Called once when a live holder makes us wait. */
  onWait?: (holder: number) => void;
  /** Words for the timeout error: what the holder is doing ("another omp update"). */
  what?: string;
}

function acquireStep(path: string, state: { told: boolean }, options: FileLockOptions, deadline: number): boolean {
  if (tryCreate(path)) return true;
  const holder = holderOf(path);
  if (holder !== null && !processAlive(holder)) {
    breakStaleLock(path, holder);
    return false;
  }
  if (holder !== null && !state.told) {
    options.onWait?.(holder);
    state.told = true;
  }
  if (Date.now() > deadline) {
    throw new OmpError(
      `${options.what ?? "another omp process"} (pid ${holder ?? "unknown"}) still holds ${path}; try again when it has finished, or delete that file if no omp is running`,
    );
  }
  return false;
}

function release(path: string): void {
  if (holderOf(path) === process.pid) rmSync(path, { force: true });
}

/** Runs `body` holding the lock file `path` (its dir must exist); waits for a live holder up to `waitMs`. */
export async function withFileLock<T>(path: string, options: FileLockOptions, body: () => Promise<T> | T): Promise<T> {
  const deadline = Date.now() + options.waitMs;
  const state = { told: false };
  while (!acquireStep(path, state, options, deadline)) await Bun.sleep(20 + Math.random() * 30);
  try {
    return await body();
  } finally {
    release(path);
  }
}

/** The same for short synchronous critical sections (a read-modify-write of a small file). */
export function withFileLockSync<T>(path: string, options: FileLockOptions, body: () => T): T {
  const deadline = Date.now() + options.waitMs;
  const state = { told: false };
  const pause = new Int32Array(new SharedArrayBuffer(4));
  while (!acquireStep(path, state, options, deadline)) Atomics.wait(pause, 0, 0, 10 + Math.random() * 20);
  try {
    return body();
  } finally {
    release(path);
  }
}

/** `<dir>/.<name>.lock`, beside the file it guards. */
export const lockPathBeside = (file: string, suffix = "lock") => join(dirname(file), `.${basename(file)}.${suffix}`);

/**
 * Takes the lock `path` for as long as the caller needs it (until `release`, or this process
 * exits), without waiting: a live holder is answered with its pid instead. For a file one process
 * owns while it runs, such as an open session.
 */
export function holdFileLock(path: string): { release: () => void } | { holder: number } {
  for (let attempt = 0; attempt < 3; attempt++) {
    if (tryCreate(path)) {
      const onExit = () => release(path);
      process.once("exit", onExit);
      return {
        release: () => {
          process.off("exit", onExit);
          release(path);
        },
      };
    }
    const holder = holderOf(path);
    // This process has it already (a session switched to itself): the first holder releases it.
    if (holder === process.pid) return { release: () => {} };
    if (holder !== null && processAlive(holder)) return { holder };
    if (holder !== null) breakStaleLock(path, holder);
  }
  return { holder: holderOf(path) ?? 0 };
}
