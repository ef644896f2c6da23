import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { OmpError } from "../errors/omp-error.ts";
import { natives } from "../natives/index.ts";
import { languageOf } from "./engine.ts";

/** Files bigger than this are skipped (generated bundles); the result says how many. */
const MAX_FILE_BYTES = 2 * 1024 * 1024;
const MAX_FILES = 20_000;
const EXTENSIONS = "ts,mts,cts,tsx,js,mjs,cjs,jsx,py,pyi,go,rs,html,htm,css";

export interface SourceFile {
  path: string;
  lang: string;
  text: string;
}

/**
 * The files under `path` (a file or a directory, .gitignore respected) that `glob` selects, each
 * with its language by extension; files of no supported language are left out.
 */
export async function sourceFiles(path: string, options: { glob?: string; signal?: AbortSignal; readable?: (path: string) => boolean }): Promise<{ files: SourceFile[]; skipped: number }> {
  let paths: string[];
  if (statSync(path).isFile()) {
    paths = [path];
  } else {
    const result = await natives().glob({
      patterns: [options.glob ?? `**/*.{${EXTENSIONS}}`],
      root: path,
      kinds: ["file"],
      hidden: false,
      respectIgnore: true,
      maxResults: MAX_FILES,
      ...(options.signal ? { signal: options.signal } : {}),
      timeoutMs: 60_000,
    });
    if (result.limitReached) throw new OmpError(`more than ${MAX_FILES} files match; give a narrower path or glob`);
    paths = result.entries.map((entry) => join(path, entry.path)).sort();
  }
  const files: SourceFile[] = [];
  let skipped = 0;
  for (const file of paths) {
    const lang = languageOf(file);
    if (!lang || options.readable?.(file) === false) continue;
    if (statSync(file).size > MAX_FILE_BYTES) {
      skipped++;
      continue;
    }
    files.push({ path: file, lang, text: readFileSync(file, "utf8") });
  }
  return { files, skipped };
}
