import { readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { processAlive } from "../fs/file-lock.ts";

/**
 * A damaged addon whose size and mtime are intact passes the stat that makes a cache hit cheap,
 * and can kill the process inside dlopen (SIGSEGV) before any error can be caught. So a marker
 * holding our pid sits beside the addon while it loads: a marker whose process is gone means a
 * run died loading that file, and the next run checks its sha256 before trusting it again.
 */

function markerPath(addon: string): string {
  return join(dirname(addon), `.${basename(addon)}.loading`);
}

/** unlink, not rmSync: rmSync costs ~2 ms on every start-up for the checks a directory would need. */
function removeMarker(marker: string): void {
  try {
    unlinkSync(marker);
  } catch {
    // Already gone: another run removed it.
  }
}

function holder(marker: string): number | null {
  let text: string;
  try {
    text = readFileSync(marker, "utf8");
  } catch {
    return null;
  }
  const pid = Number.parseInt(text, 10);
  // An unreadable pid is as stale as a dead one: nothing live wrote it.
  return Number.isSafeInteger(pid) && pid > 0 ? pid : 0;
}

/** The pid of a run that died while loading `addon`, or null when none did. */
export function crashedWhileLoading(addon: string): number | null {
  const pid = holder(markerPath(addon));
  if (pid === null || pid === process.pid) return null;
  return pid !== 0 && processAlive(pid) ? null : pid;
}

/** Runs `load` with the marker in place, and removes it once the load returned or threw. */
export function withLoadingMarker<T>(addon: string, load: () => T): T {
  const marker = markerPath(addon);
  try {
    writeFileSync(marker, `${process.pid}\n`, { mode: 0o600 });
  } catch {
    // A cache the user made read-only still loads, only without the crash detection.
    return load();
  }
  try {
    return load();
  } finally {
    // Another run may have put its own marker in place meanwhile; that one is its to remove.
    if (holder(marker) === process.pid) removeMarker(marker);
  }
}

/** Removes the marker of a run that is gone, once its file has been dealt with. */
export function clearStaleMarker(addon: string): void {
  if (crashedWhileLoading(addon) !== null) removeMarker(markerPath(addon));
}
