import { closeSync, fsyncSync, futimesSync, mkdtempSync, openSync, readFileSync, rmSync, rmdirSync, writeSync } from "node:fs";
import { join } from "node:path";
import type { LauncherFile, NativeFile, NativesManifest } from "./manifest.ts";
import type { EmbeddedNatives } from "./payload.ts";
import { type TarEntry, readTar } from "./tar.ts";

/** The embedded archive failed a safety check: nothing from it may be written or loaded. */
export class UnsafeArchiveError extends Error {
  override readonly name = "UnsafeArchiveError";
}

export function sha256Hex(data: Uint8Array): string {
  return new Bun.CryptoHasher("sha256").update(data).digest("hex");
}

/** Refuses the whole archive on any entry that is not a plain, flat file the manifest names. */
export function checkEntries(entries: TarEntry[], manifest: NativesManifest): void {
  const allowed = new Set([...manifest.files, ...(manifest.launcher ? [manifest.launcher] : [])].map((file) => file.name));
  const seen = new Set<string>();
  for (const entry of entries) {
    const name = JSON.stringify(entry.name);
    if (entry.name.startsWith("/")) throw new UnsafeArchiveError(`entry ${name} has an absolute path`);
    if (entry.name.split(/[/\\]/).includes("..")) throw new UnsafeArchiveError(`entry ${name} climbs out with ".."`);
    if (entry.type === "symlink" || entry.type === "hardlink") {
      throw new UnsafeArchiveError(`entry ${name} is a ${entry.type} to ${JSON.stringify(entry.linkName)}`);
    }
    if (entry.type !== "file") throw new UnsafeArchiveError(`entry ${name} has type flag ${JSON.stringify(entry.flag)}, only plain files are allowed`);
    if (!allowed.has(entry.name)) throw new UnsafeArchiveError(`entry ${name} is not listed in the manifest`);
    if (seen.has(entry.name)) throw new UnsafeArchiveError(`entry ${name} appears twice`);
    seen.add(entry.name);
  }
}

/** Extraction temp dirs inside a version dir: `.tmp-<pid>-XXXXXX`. */
export const TEMP_PREFIX = ".tmp-";

/** Whether the file at `path` has exactly the bytes the manifest lists for `file`. */
export function matchesManifest(path: string, file: NativeFile | LauncherFile): boolean {
  try {
    return sha256Hex(readFileSync(path)) === file.sha256;
  } catch {
    return false;
  }
}

/**
 * The verified bytes of `file`, read from its variant's archive: the only archive a first run
 * reads, since on a small VM each megabyte copied into fresh memory costs ~5 ms.
 */
function verifiedContents(embedded: EmbeddedNatives, file: NativeFile | LauncherFile): Uint8Array {
  const kind = "variant" in file ? file.variant : "the sandbox launcher";
  const archivePath = "variant" in file ? embedded.archives[file.variant] : embedded.launcherArchive;
  if (!archivePath) throw new UnsafeArchiveError(`this binary embeds no archive for ${file.name}`);
  let entries: TarEntry[];
  try {
    entries = readTar(readFileSync(archivePath));
  } catch (error) {
    throw new UnsafeArchiveError(`the embedded natives archive for ${kind} is unreadable: ${(error as Error).message}`);
  }
  checkEntries(entries, embedded.manifest);
  const stored = entries.find((entry) => entry.name === file.name)?.data;
  if (!stored) throw new UnsafeArchiveError(`the embedded natives archive for ${kind} lacks ${file.name}`);
  let data = stored;
  if (!("variant" in file)) {
    // The launcher is stored gzipped (embed/pack.ts); its size and sha256 are the executable's.
    try {
      data = Bun.gunzipSync(stored as Uint8Array<ArrayBuffer>);
    } catch (error) {
      throw new UnsafeArchiveError(`${file.name} in the archive does not inflate: ${(error as Error).message}`);
    }
  }
  if (data.length !== file.size) {
    throw new UnsafeArchiveError(`${file.name} in the archive is ${data.length} bytes, the manifest says ${file.size}`);
  }
  const digest = sha256Hex(data);
  if (digest !== file.sha256) throw new UnsafeArchiveError(`${file.name} in the archive has sha256 ${digest}, the manifest says ${file.sha256}`);
  return data;
}

export interface Extracted {
  /** The verified file, inside `tempDir`, ready to be loaded and renamed into place. */
  path: string;
  tempDir: string;
}

/**
 * Writes `file` from its archive into a fresh temp dir inside `versionDir` (same filesystem, so the
 * later rename is atomic), after checking its size and sha256 against the manifest, with the
 * manifest's mtime, and fsyncs it: data, size and mtime are on disk before the caller renames it
 * into place, so the stat that makes a cache hit can never pass for a torn file. A crash leaves at
 * most a `.tmp-<pid>-*` dir that nothing ever loads and that pruneNatives removes once its process
 * is gone.
 */
export function extractToTemp(embedded: EmbeddedNatives, file: NativeFile | LauncherFile, versionDir: string): Extracted {
  return writeToTemp(verifiedContents(embedded, file), file.name, embedded.manifest.mtime, versionDir);
}

/** `data` as `name` in a fresh temp dir inside `versionDir`, with mtime `mtime`, synced; see extractToTemp. */
export function writeToTemp(data: Uint8Array, name: string, mtime: number, versionDir: string): Extracted {
  // The pid in the name tells a later run that the dir of a killed extraction is garbage.
  const tempDir = mkdtempSync(join(versionDir, `${TEMP_PREFIX}${process.pid}-`));
  const path = join(tempDir, name);
  try {
    const fd = openSync(path, "wx", 0o755);
    try {
      let written = 0;
      while (written < data.length) written += writeSync(fd, data, written);
      futimesSync(fd, mtime, mtime);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    rmSync(tempDir, { recursive: true, force: true });
    throw error;
  }
  return { path, tempDir };
}

/**
 * Gives back what an extraction read and inflated (the archive and the file's bytes: megabytes a
 * first run would otherwise carry to its end): a full collection, and the freed pages returned.
 * A few milliseconds on a run that has just written and synced the file; `omp -p hi`'s first run
 * peaks 2.5 MiB lower (bench/results/rss-floor.md). Called once the extraction's result is out of
 * reach of the caller's stack.
 */
export function releaseExtraction(): void {
  Bun.gc(true);
  Bun.shrink();
}

/** Removes an extraction's temp dir; rmdir alone does once its file was renamed into place. */
export function discardTemp(extracted: Extracted): void {
  try {
    rmdirSync(extracted.tempDir);
  } catch {
    // The file is still inside: its load or rename failed. rmSync's walk costs ~0.6 ms more.
    rmSync(extracted.tempDir, { recursive: true, force: true });
  }
}
