import { existsSync, realpathSync } from "node:fs";
import { isAbsolute, join, relative, resolve } from "node:path";
import { expandHome, homeDir, sessionsRoot, tempDir } from "../paths.ts";
import { migrateLegacySessionDir } from "./migrate-dir.ts";

const SEPARATORS = /[/\\:]/g;

function canonical(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

function inside(parent: string, child: string): string | undefined {
  const rel = relative(parent, child);
  if (rel === "") return "";
  return rel.startsWith("..") || isAbsolute(rel) ? undefined : rel;
}

/**
 * A path's characters for a dir name: separators become `-`, and the characters that would make
 * two paths share a name (`-` itself, `:`) and the escape `%` are percent-encoded, so `x/a-b`
 * (`x-a%2Db`) and `x/a/b` (`x-a-b`) stay apart. Paths without those characters read as before.
 */
function escapePath(path: string): string {
  return path.replace(/[%:-]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0")}`).replace(/[/\\]/g, "-");
}

/**
 * The name of a project's session dir: `-<path below home>` (`-` for home itself),
 * `-%tmp-<path below the temp dir>`, or `--<absolute path>--` elsewhere (see escapePath). The
 * three forms cannot produce each other's names (an escaped path never holds a bare `%` or starts
 * with `-`), so two folders never share a dir. The cwd is resolved through symlinks first so one
 * project has one dir however it was reached.
 */
export function encodeCwd(cwd: string, places: Places = {}): string {
  return encode(cwd, places, escapePath, "-%tmp-");
}

/** The ambiguous name omp used before (every `/ \\ :` and `-` alike): its dirs are migrated. */
export function legacyEncodeCwd(cwd: string, places: Places = {}): string {
  return encode(cwd, places, (path) => path.replace(SEPARATORS, "-"), "-tmp-");
}

type Places = { home?: string; tmp?: string };

function encode(cwd: string, places: Places, escape: (path: string) => string, tmpPrefix: string): string {
  const path = canonical(cwd);
  const underHome = inside(canonical(places.home ?? homeDir()), path);
  if (underHome !== undefined) return `-${escape(underHome)}`;
  const underTmp = inside(canonical(places.tmp ?? tempDir()), path);
  if (underTmp !== undefined) return `${tmpPrefix}${escape(underTmp)}`;
  return `--${escape(path.replace(/^[/\\]+/, ""))}--`;
}

export interface SessionDirOptions {
  /** `--session-dir` or the `sessionDir` setting: holds the files directly; relative to cwd. */
  sessionDir?: string;
  env?: NodeJS.ProcessEnv;
  home?: string;
}

/**
 * The directory holding a project's session files. This project's sessions still in a dir of the
 * old, ambiguous name are moved here first (see migrate-dir.ts).
 */
export function sessionDirFor(cwd: string, options: SessionDirOptions = {}): string {
  if (options.sessionDir) return resolve(cwd, expandHome(options.sessionDir, options.home));
  const root = sessionsRoot(options.env);
  const dir = join(root, encodeCwd(cwd, { home: options.home }));
  const legacy = join(root, legacyEncodeCwd(cwd, { home: options.home }));
  if (legacy !== dir && existsSync(legacy)) {
    const project = canonical(cwd);
    migrateLegacySessionDir(legacy, dir, (headerCwd) => canonical(headerCwd) === project);
  }
  return dir;
}

/**
 * Where a project's sessions are read from: omp's own dir, then the original omp's dir for the
 * project when there is one. The original names it as omp once did (legacyEncodeCwd); omp moves
 * only its own files out of it, so the original's sessions stay where the original finds them.
 */
export function projectSessionDirs(cwd: string, options: SessionDirOptions = {}): string[] {
  const dir = sessionDirFor(cwd, options);
  if (options.sessionDir) return [dir];
  const original = join(sessionsRoot(options.env), legacyEncodeCwd(cwd, { home: options.home }));
  return original !== dir && existsSync(original) ? [dir, original] : [dir];
}

/** `2026-02-16T10-20-30-000Z_<id>.jsonl`: sorts by creation time, and the id can be matched without reading the file. */
export function sessionFileName(created: Date, id: string): string {
  return `${created.toISOString().replace(/[:.]/g, "-")}_${id}.jsonl`;
}

/** The session id part of a file name written by {@link sessionFileName}. */
export function idFromFileName(name: string): string | undefined {
  return /^[^_]+_(.+)\.jsonl$/.exec(name)?.[1];
}
