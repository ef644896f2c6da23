import { lockPathBeside, withFileLock } from "../fs/file-lock.ts";

export { processAlive } from "../fs/file-lock.ts";

/** One update of a given binary at a time: a pid lock file beside the binary. */
export interface LockOptions {
  waitMs: number;
  onWait?: (holder: number) => void;
}

/** Runs `body` holding the update lock for `target`; waits for a live holder up to `waitMs`. */
export function withInstallLock<T>(target: string, options: LockOptions, body: () => Promise<T>): Promise<T> {
  return withFileLock(lockPathBeside(target, "update-lock"), { ...options, what: `another omp update on ${target}` }, body);
}
