import { readFileSync, renameSync } from "node:fs";
import { join, resolve } from "node:path";
import { describeError } from "../errors/omp-error.ts";
import { VERSION } from "../version.ts";
import { type CacheRoot, fallbackCacheRoots, primaryCacheRoot } from "./cache-dir.ts";
import { UnsafeArchiveError, discardTemp, sha256Hex, writeToTemp } from "./extract.ts";
import { cacheDirName } from "./cache-key.ts";
import { cachedState, prepareVersionDir } from "./load.ts";
import { type ExtraFile, getEmbeddedExtras, getEmbeddedNatives } from "./payload.ts";

/**
 * Prebuilt files from npm packages that the build embeds next to omp's own addon (ast-grep's
 * N-API addon and tree-sitter grammars): extracted on first use into the same per-version cache
 * dir, with the same checks (size and mtime make a hit; the sha256 the build recorded is checked
 * before a file is written; temp file, then rename).
 */

/** Where each extra comes from in a source checkout (and what embed/build.ts packs), by this machine's platform. */
export function extraSources(platform = `${process.platform}-${process.arch}`): { name: string; source: string }[] {
  const root = resolve(import.meta.dir, "..", "..", "node_modules", "@ast-grep");
  const [os, arch] = platform.split("-") as [string, string];
  const prebuild = `prebuild-${({ linux: "Linux", darwin: "macOS", win32: "Windows" } as Record<string, string>)[os] ?? os}-${({ x64: "X64", arm64: "ARM64" } as Record<string, string>)[arch] ?? arch}`;
  const napi = os === "linux" ? `${platform}-gnu` : platform;
  return [
    { name: "ast-grep-napi.node", source: join(root, `napi-${napi}`, `ast-grep-napi.${napi}.node`) },
    ...["python", "go", "rust"].map((lang) => ({ name: `tree-sitter-${lang}.so`, source: join(root, `lang-${lang}`, "prebuilds", prebuild, "parser.so") })),
  ];
}

const extracted = new Map<string, string>();

/**
 * The path on disk of extra file `name`, extracting it from the binary when needed. Throws with
 * what to do when it cannot: this binary was built without it, or no cache dir can hold it.
 */
export function extraFilePath(name: string): string {
  const known = extracted.get(name);
  if (known) return known;
  const embedded = getEmbeddedExtras();
  if (!embedded) {
    const source = extraSources().find((extra) => extra.name === name)?.source;
    if (!source) throw new Error(`${name} is not one of omp's embedded files`);
    return source;
  }
  const file = embedded.files.find((extra) => extra.name === name);
  if (!file) throw new Error(`this omp binary was built without ${name} (its npm package was missing at build time); rebuild it after npm install`);
  const attempts: string[] = [];
  for (const root of roots(attempts)) {
    try {
      const path = extractInto(root, file, embedded.mtime);
      extracted.set(name, path);
      return path;
    } catch (error) {
      if (error instanceof UnsafeArchiveError) throw error;
      attempts.push(`${root.path}: ${describeError(error)}`);
    }
  }
  throw new Error(`cannot extract ${name}: ${attempts.join("; ")}. Set OMP_NATIVES_DIR to a writable directory on a filesystem that allows executables.`);
}

function* roots(attempts: string[]): Generator<CacheRoot> {
  let primary: CacheRoot | undefined;
  try {
    primary = primaryCacheRoot();
    yield primary;
  } catch (error) {
    attempts.push(`OMP_NATIVES_DIR: ${describeError(error)}`);
  }
  for (const root of fallbackCacheRoots()) if (root.path !== primary?.path) yield root;
}

function extractInto(root: CacheRoot, file: ExtraFile, mtime: number): string {
  const natives = getEmbeddedNatives();
  const versionDir = prepareVersionDir(root, natives ? cacheDirName(natives) : VERSION);
  const target = join(versionDir, file.name);
  if (cachedState(target, file, { mtime }) === "hit") return target;
  const data = readFileSync(file.path);
  const digest = sha256Hex(data);
  if (data.length !== file.size || digest !== file.sha256) throw new UnsafeArchiveError(`the embedded ${file.name} has sha256 ${digest}, the build recorded ${file.sha256}`);
  const temp = writeToTemp(data, file.name, mtime, versionDir);
  try {
    renameSync(temp.path, target);
  } finally {
    discardTemp(temp);
  }
  return target;
}
