import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { displayPath } from "../../paths.ts";

const MODULE = /\.(?:ts|js|mjs|mts|cjs|cts)$/;

/**
 * The module(s) an extension path stands for: a module file itself; a folder with a package.json
 * whose `omp.extensions` (or `pi.extensions`) lists entry points; or a folder's index.ts / index.js.
 */
export function extensionEntries(path: string): { entries: string[]; problem?: string } {
  let stat;
  try {
    stat = statSync(path);
  } catch {
    return { entries: [], problem: `${displayPath(path)}: no such extension file or folder` };
  }
  if (stat.isFile()) return MODULE.test(path) ? { entries: [path] } : { entries: [], problem: `${displayPath(path)}: not a .ts or .js module` };
  const manifest = join(path, "package.json");
  if (existsSync(manifest)) {
    try {
      const pkg = JSON.parse(readFileSync(manifest, "utf8")) as { omp?: { extensions?: unknown }; pi?: { extensions?: unknown } };
      const listed = pkg.omp?.extensions ?? pkg.pi?.extensions;
      if (Array.isArray(listed) && listed.every((entry) => typeof entry === "string")) return { entries: listed.map((entry) => resolve(path, entry)) };
    } catch (error) {
      return { entries: [], problem: `${displayPath(manifest)}: not readable JSON (${(error as Error).message})` };
    }
  }
  for (const index of ["index.ts", "index.js", "index.mjs"]) {
    if (existsSync(join(path, index))) return { entries: [join(path, index)] };
  }
  return { entries: [], problem: `${displayPath(path)}: no index.ts, index.js or package.json with omp.extensions` };
}

/** Every extension in an extensions folder: its module files and its sub-folders, in name order. */
export function extensionsIn(dir: string): { entries: string[]; problems: string[] } {
  if (!existsSync(dir)) return { entries: [], problems: [] };
  const entries: string[] = [];
  const problems: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    if (name.startsWith(".") || name === "node_modules") continue;
    const path = join(dir, name);
    if (!MODULE.test(name) && !statSync(path).isDirectory()) continue;
    const found = extensionEntries(path);
    entries.push(...found.entries);
    if (found.problem) problems.push(found.problem);
  }
  return { entries, problems };
}
