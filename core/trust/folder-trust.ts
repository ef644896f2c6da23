import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { isWithin } from "../fs/within.ts";
import { writeFileAtomic } from "../fs/atomic-write.ts";
import { realFolder } from "../fs/real-folder.ts";
import { withFileLockSync, lockPathBeside } from "../fs/file-lock.ts";
import { agentDir, configRoot, displayPath, ensurePrivateDir, homeDir } from "../paths.ts";

/**
 * Folder trust: a project folder (and everything under it) is untrusted until the user trusts it.
 * In an untrusted folder project files may give text (context files, skills, commands, agents,
 * harmless settings) but never run code, redirect requests, change credentials, lower approvals
 * or set environment variables that change how tools run. Every loader that reads a project file
 * asks `folderTrust(cwd)` before taking anything of that kind from it, and records what it left
 * out with `noteSkippedForTrust`, so the user sees one line saying what and how to trust.
 *
 * The answers live in `<agent dir>/trusted-folders.json`, keyed by real path; the nearest
 * recorded ancestor of a folder decides. The home dir itself and `~/.omp` are always trusted: they
 * are the user's own files, not something cloned.
 */

export interface TrustEntry {
  trusted: boolean;
  /** ISO time of the decision. */
  at: string;
}

/** What one part of a project held when the user trusted it (core/trust/content-pins.ts). */
export interface Pin {
  sha256: string;
  /** The text, for showing a diff; absent when it was too big to keep. */
  text?: string;
  /** The whole file's hash, when it is a file. */
  raw?: string;
}

export interface TrustStore {
  version: 1;
  folders: Record<string, TrustEntry>;
  /** Per project folder (real path), per part (absolute path): what trust was given to. */
  pins?: Record<string, Record<string, Pin>>;
}

export type TrustSource = "home" | "omp-dir" | "stored" | "run-flag" | "default";

export interface FolderTrust {
  trusted: boolean;
  /** Why: the user's own dirs, a stored decision, the one-run flag, or no decision yet. */
  source: TrustSource;
  /** The folder whose entry decided (for "stored"), else the folder asked about (real path). */
  folder: string;
}

export const trustStorePath = (env: NodeJS.ProcessEnv = process.env) => join(agentDir(env), "trusted-folders.json");

export function readTrustStore(env: NodeJS.ProcessEnv = process.env): TrustStore {
  const path = trustStorePath(env);
  if (!existsSync(path)) return { version: 1, folders: {} };
  try {
    const parsed = JSON.parse(readFileSync(path, "utf8")) as Partial<TrustStore>;
    const folders: Record<string, TrustEntry> = {};
    for (const [folder, entry] of Object.entries(parsed.folders ?? {})) {
      if (entry && typeof entry.trusted === "boolean") folders[folder] = { trusted: entry.trusted, at: String(entry.at ?? "") };
    }
    const pins: Record<string, Record<string, Pin>> = {};
    for (const [folder, parts] of Object.entries(parsed.pins ?? {})) {
      pins[folder] = {};
      for (const [part, pin] of Object.entries(parts ?? {})) {
        if (pin && typeof pin.sha256 === "string") pins[folder][part] = { sha256: pin.sha256, ...(typeof pin.text === "string" ? { text: pin.text } : {}), ...(typeof pin.raw === "string" ? { raw: pin.raw } : {}) };
      }
    }
    return { version: 1, folders, pins };
  } catch {
    // A damaged store trusts nothing: failing closed is the safe reading of an unreadable answer.
    return { version: 1, folders: {} };
  }
}

let trustedThisRun = false;

/**
 * `--trust`: every folder asked about in this process counts as trusted, nothing stored. Set once
 * at start-up, so that loaders elsewhere (hooks, extensions, MCP servers) asking `folderTrust(cwd)`
 * see the flag without it being passed to them.
 */
export function trustForThisRun(): void {
  trustedThisRun = true;
}

export interface FolderTrustOptions {
  env?: NodeJS.ProcessEnv;
  /** The one-run flag (`--trust`): trusted for this run, nothing stored. Default: whether trustForThisRun was called. */
  runFlag?: boolean;
  store?: TrustStore;
}

/** Whether project files under `cwd` may run code, redirect requests or change approvals. */
export function folderTrust(cwd: string, options: FolderTrustOptions = {}): FolderTrust {
  const env = options.env ?? process.env;
  const folder = realFolder(cwd);
  const home = realFolder(homeDir());
  if (folder === home) return { trusted: true, source: "home", folder };
  if (isWithin(folder, realFolder(configRoot())) || isWithin(folder, realFolder(agentDir(env)))) {
    return { trusted: true, source: "omp-dir", folder };
  }
  if (options.runFlag ?? trustedThisRun) return { trusted: true, source: "run-flag", folder };
  const store = options.store ?? readTrustStore(env);
  for (let dir = folder; ; dir = dirname(dir)) {
    const entry = store.folders[dir];
    if (entry) return { trusted: entry.trusted, source: "stored", folder: dir };
    if (dirname(dir) === dir) break;
  }
  return { trusted: false, source: "default", folder };
}

export function updateTrustStore(env: NodeJS.ProcessEnv, change: (store: TrustStore) => void): void {
  const path = trustStorePath(env);
  ensurePrivateDir(dirname(path));
  withFileLockSync(lockPathBeside(path), { waitMs: 10_000, what: "another omp trust change" }, () => {
    const store = readTrustStore(env);
    change(store);
    writeFileAtomic(path, `${JSON.stringify(store, null, 2)}\n`, { mode: 0o600 });
  });
}

/** Records the user's answer for `dir` (and everything under it). Returns the real path stored. */
export function setFolderTrust(dir: string, trusted: boolean, env: NodeJS.ProcessEnv = process.env): string {
  const folder = realFolder(dir);
  updateTrustStore(env, (store) => {
    store.folders[folder] = { trusted, at: new Date().toISOString() };
  });
  return folder;
}

/** Forgets the answer for `dir`; true when there was one. */
export function forgetFolderTrust(dir: string, env: NodeJS.ProcessEnv = process.env): boolean {
  const folder = realFolder(dir);
  let had = false;
  updateTrustStore(env, (store) => {
    had = Object.hasOwn(store.folders, folder);
    delete store.folders[folder];
    // What it was trusted with goes too: trusted again later, it is pinned afresh.
    for (const pinned of Object.keys(store.pins ?? {})) if (isWithin(pinned, folder)) delete store.pins![pinned];
  });
  return had;
}

const skipped = new Set<string>();

/** A loader left `what` out because the folder is untrusted ("hooks in .omp/config.yml"). */
export function noteSkippedForTrust(what: string): void {
  skipped.add(what);
}

/** What was left out so far, in the order first noted. */
export function skippedForTrust(): string[] {
  return [...skipped];
}

/** Forgets what was noted: after a dry run of the loaders that only asked what trust would change. */
export function clearSkippedForTrust(): void {
  skipped.clear();
}

/** The one line that tells the user what an untrusted folder was not allowed to do, or undefined. */
export function untrustedNotice(cwd: string): string | undefined {
  if (skipped.size === 0) return undefined;
  const shown = displayPath(realFolder(cwd));
  return `omp: ${shown} is not trusted, so these were skipped: ${[...skipped].join("; ")}. Trust it with \`omp trust ${shown}\` (or --trust for one run).`;
}
