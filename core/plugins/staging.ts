import { existsSync, mkdirSync, readdirSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { processAlive } from "../fs/file-lock.ts";
import { npmModulesDir, pluginsRoot, stagingRoot } from "./paths.ts";
import { dirNames } from "../fs/dir-names.ts";

/**
 * Installs are built in `cache/.staging/<pid>-<n>` and renamed into place only when whole; the
 * state file is written after that. A run killed at any moment therefore leaves at most a staging
 * dir (removed here on the next run) and the previous install still in use.
 */
export function stagingDir(): string {
  const dir = join(stagingRoot(), `${process.pid}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return dir;
}

export function cleanStaging(): void {
  let names: string[];
  try {
    names = readdirSync(stagingRoot());
  } catch {
    return;
  }
  for (const name of names) {
    const pid = Number.parseInt(name, 10);
    if (pid === process.pid || (Number.isSafeInteger(pid) && pid > 0 && processAlive(pid))) continue;
    rmSync(join(stagingRoot(), name), { recursive: true, force: true });
  }
  for (const parent of [join(pluginsRoot(), "cache", "plugins"), join(pluginsRoot(), "cache", "marketplaces"), npmModulesDir()]) recoverAside(parent);
}

/** A swap killed between its two renames: the old dir goes back if the new one never arrived. */
function recoverAside(parent: string): void {
  for (const name of dirNames(parent)) {
    // Scoped npm packages sit one folder down.
    if (name.startsWith("@")) recoverAside(join(parent, name));
    const match = /^(.*)\.old-(\d+)$/.exec(name);
    if (!match || processAlive(Number(match[2]))) continue;
    const dest = join(parent, match[1]!);
    if (existsSync(dest)) rmSync(join(parent, name), { recursive: true, force: true });
    else renameSync(join(parent, name), dest);
  }
}

/**
 * Puts a finished `built` dir at `dest`, replacing what is there: the old one is moved aside first
 * and deleted only after the new one is in place.
 */
export function swapInto(built: string, dest: string): void {
  const aside = `${dest}.old-${process.pid}`;
  let moved = false;
  try {
    renameSync(dest, aside);
    moved = true;
  } catch {}
  try {
    renameSync(built, dest);
  } catch (error) {
    if (moved) renameSync(aside, dest);
    throw error;
  }
  if (moved) rmSync(aside, { recursive: true, force: true });
}
