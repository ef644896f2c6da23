import { lstatSync, readFileSync, readdirSync, readlinkSync, realpathSync, rmSync } from "node:fs";
import { join } from "node:path";

/**
 * Removes the `omp-*` temp dirs that killed runs left behind (a run removes its own at its end,
 * test/support/temp.ts; a killed one cannot): a long-lived machine filled its disk with 3,245 of
 * them. A dir goes only when it is ours, has not changed for `STALE_AFTER_MS` (itself and its
 * entries), and no live process refers to it — cwd, root, an open file, a mapped file, an argument
 * or an environment variable (a run's HOME) — so another engineer's or a running test's dirs stay.
 * Where /proc cannot be read nothing goes: "not in use" cannot be told there.
 */
export const STALE_AFTER_MS = 6 * 60 * 60 * 1000;

/** `omp-<uid>` holds the natives cache of runs without a home of their own (core/natives/cache-dir.ts). */
const NATIVES_FALLBACK = /^omp-\d+$/;

function newestChange(dir: string): number {
  let newest = lstatSync(dir).mtimeMs;
  for (const name of readdirSync(dir)) {
    try {
      newest = Math.max(newest, lstatSync(join(dir, name)).mtimeMs);
    } catch {}
  }
  return newest;
}

function candidates(root: string, now: number, uid: number): string[] {
  let names: string[];
  try {
    // Resolved, as /proc names what processes hold.
    root = realpathSync(root);
    names = readdirSync(root);
  } catch {
    return [];
  }
  const stale: string[] = [];
  for (const name of names) {
    if (!name.startsWith("omp-") || NATIVES_FALLBACK.test(name)) continue;
    const dir = join(root, name);
    try {
      const stat = lstatSync(dir);
      if (!stat.isDirectory() || stat.uid !== uid) continue;
      if (now - newestChange(dir) > STALE_AFTER_MS) stale.push(dir);
    } catch {}
  }
  return stale;
}

function readOr(read: () => string, fallback = ""): string {
  try {
    return read();
  } catch {
    return fallback;
  }
}

/** Everything live processes name: paths they hold or map, their arguments and environments. Null without /proc. */
function processReferences(): string[] | null {
  let pids: string[];
  try {
    pids = readdirSync("/proc").filter((name) => /^\d+$/.test(name));
  } catch {
    return null;
  }
  if (pids.length === 0) return null;
  const refs: string[] = [];
  for (const pid of pids) {
    const base = `/proc/${pid}`;
    refs.push(readOr(() => readlinkSync(`${base}/cwd`)), readOr(() => readlinkSync(`${base}/root`)));
    for (const fd of readOr(() => readdirSync(`${base}/fd`).join("\n")).split("\n")) {
      if (fd) refs.push(readOr(() => readlinkSync(`${base}/fd/${fd}`)));
    }
    refs.push(readOr(() => readFileSync(`${base}/maps`, "utf8")), readOr(() => readFileSync(`${base}/cmdline`, "utf8")), readOr(() => readFileSync(`${base}/environ`, "utf8")));
  }
  return refs.filter(Boolean);
}

/** Whether `text` names `dir` itself or something below it (not merely a longer name that starts alike). */
function names(text: string, dir: string): boolean {
  for (let at = text.indexOf(dir); at !== -1; at = text.indexOf(dir, at + 1)) {
    const next = text[at + dir.length];
    if (next === undefined || !/[A-Za-z0-9._-]/.test(next)) return true;
  }
  return false;
}

/** Removes stale, unused `omp-*` dirs directly below `root`; returns what it removed. Never throws. */
export function sweepStaleTemp(root: string, now: number = Date.now()): string[] {
  const uid = process.getuid?.();
  if (uid === undefined) return [];
  const stale = candidates(root, now, uid);
  if (stale.length === 0) return [];
  const refs = processReferences();
  if (refs === null) return [];
  const removed: string[] = [];
  for (const dir of stale) {
    if (refs.some((ref) => names(ref, dir))) continue;
    try {
      rmSync(dir, { recursive: true, force: true });
      removed.push(dir);
    } catch {}
  }
  return removed;
}
