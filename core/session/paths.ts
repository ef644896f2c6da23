import { realpathSync } from "node:fs";
import { isAbsolute, join, relative, resolve } from "node:path";
import { expandHome, homeDir, sessionsRoot, tempDir } from "../paths.ts";

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
 * The name of a project's session dir: `-<path below home>` (`-` for home itself),
 * `-tmp-<path below the temp dir>`, or `--<absolute path>--` elsewhere, with `/ \ :` as `-`.
 * The cwd is resolved through symlinks first so one project has one dir however it was reached.
 */
export function encodeCwd(cwd: string, places: { home?: string; tmp?: string } = {}): string {
  const path = canonical(cwd);
  const underHome = inside(canonical(places.home ?? homeDir()), path);
  if (underHome !== undefined) return `-${underHome.replace(SEPARATORS, "-")}`;
  const underTmp = inside(canonical(places.tmp ?? tempDir()), path);
  if (underTmp !== undefined) return `-tmp-${underTmp.replace(SEPARATORS, "-")}`;
  return `--${path.replace(/^[/\\]+/, "").replace(SEPARATORS, "-")}--`;
}

export interface SessionDirOptions {
  /** `--session-dir` or the `sessionDir` setting: holds the files directly; relative to cwd. */
  sessionDir?: string;
  env?: NodeJS.ProcessEnv;
  home?: string;
}

/** The directory holding a project's session files. */
export function sessionDirFor(cwd: string, options: SessionDirOptions = {}): string {
  if (options.sessionDir) return resolve(cwd, expandHome(options.sessionDir, options.home));
  return join(sessionsRoot(options.env), encodeCwd(cwd, { home: options.home }));
}

/** `2026-02-16T10-20-30-000Z_<id>.jsonl`: sorts by creation time, and the id can be matched without reading the file. */
export function sessionFileName(created: Date, id: string): string {
  return `${created.toISOString().replace(/[:.]/g, "-")}_${id}.jsonl`;
}

/** The session id part of a file name written by {@link sessionFileName}. */
export function idFromFileName(name: string): string | undefined {
  return /^[^_]+_(.+)\.jsonl$/.exec(name)?.[1];
}
