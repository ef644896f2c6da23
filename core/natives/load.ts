import { lstatSync, renameSync } from "node:fs";
import { join } from "node:path";
import type { NativeAddon } from "./api.ts";
import { OmpError, describeError } from "../errors/omp-error.ts";
import { VERSION } from "../version.ts";
import { syncDirectory } from "../fs/atomic-write.ts";
import { ensurePrivateDir } from "../paths.ts";
import { cacheDirName } from "./cache-key.ts";
import { type CacheRoot, checkSharedRoot, ensureOwnedDir, fallbackCacheRoots, foreignControl, primaryCacheRoot } from "./cache-dir.ts";
import { UnsafeArchiveError, discardTemp, extractToTemp, matchesManifest, releaseExtraction } from "./extract.ts";
import { clearStaleMarker, crashedWhileLoading, withLoadingMarker } from "./loading-marker.ts";
import type { NativeFile, NativesManifest, Variant } from "./manifest.ts";
import { addonFileName } from "./names.ts";
import { type EmbeddedNatives, getEmbeddedNatives } from "./payload.ts";
import { pruneNatives } from "./prune.ts";
import { chooseVariant, platformTag } from "./variant.ts";
import { EXIT_FAILURE } from "../errors/exit-codes.ts";

export interface LoadAttempt {
  path: string;
  error: string;
}

/** Everything `omp doctor` shows about how the addon was found. */
export interface NativesReport {
  version: string;
  platform: string;
  variant: Variant | null;
  variantReason: string;
  /** "embedded": extracted from this binary; "source": the dev build under native/out. */
  mode: "embedded" | "source";
  configuredRoot: CacheRoot | null;
  usedRoot: CacheRoot | null;
  addonPath: string | null;
  state: "hit" | "extracted" | "repaired" | "source" | "failed";
  /** Things worth knowing that did not stop the load: repairs, fallbacks. */
  notes: string[];
  attempts: LoadAttempt[];
  pruned: string[];
  loadMs: number;
}

export class NativesLoadError extends OmpError {
  constructor(
    message: string,
    readonly report: NativesReport,
  ) {
    super(message, { exitCode: EXIT_FAILURE });
  }
}

function dlopen(path: string): NativeAddon {
  const module = { exports: {} as NativeAddon };
  process.dlopen(module, path);
  return module.exports;
}

function explainDlopenFailure(error: unknown): string {
  const message = describeError(error);
  return /failed to map segment|operation not permitted/i.test(message)
    ? `${message} (is this filesystem mounted noexec?)`
    : message;
}

/** Loads `path` and insists that the addon was built for this omp. */
function loadChecked(path: string): NativeAddon {
  let addon: NativeAddon;
  try {
    addon = dlopen(path);
  } catch (error) {
    throw new Error(explainDlopenFailure(error));
  }
  const stamp = typeof addon.buildStamp === "function" ? addon.buildStamp() : "(no stamp)";
  if (stamp !== VERSION) throw new StampMismatch(path, stamp);
  return addon;
}

class StampMismatch extends Error {
  constructor(path: string, stamp: string) {
    super(`${path} was built for omp ${stamp}, but this is omp ${VERSION}`);
  }
}

/** The dir cannot hold the addon at all, so the other variants need not be tried there. */
export class DirUnusable extends Error {}

interface Loaded {
  addon: NativeAddon;
  path: string;
  state: "hit" | "extracted" | "repaired";
  note?: string;
}

/** "hit" when `path` is this omp's addon by a stat, "absent", or why the file there is not usable. */
export function cachedState(path: string, file: { size: number }, manifest: Pick<NativesManifest, "mtime">): "hit" | "absent" | string {
  let stat;
  try {
    stat = lstatSync(path);
  } catch {
    return "absent";
  }
  if (!stat.isFile()) return `${path} is not a regular file`;
  const foreign = foreignControl(path, stat);
  if (foreign) return foreign;
  if (stat.size !== file.size || Math.floor(stat.mtimeMs / 1000) !== manifest.mtime) {
    return `${path} does not match this omp's addon (wrong size or modified)`;
  }
  return "hit";
}

/** The build's dir `name` below `root` (cache-key.ts), created private; throws DirUnusable when another user could change it. */
export function prepareVersionDir(root: CacheRoot, name: string): string {
  try {
    if (root.privateDir) ensureOwnedDir(root.privateDir);
    ensurePrivateDir(root.path);
    checkSharedRoot(root.path);
    const dir = join(root.path, name);
    ensureOwnedDir(dir);
    return dir;
  } catch (error) {
    throw new DirUnusable(describeError(error));
  }
}

/**
 * One cache dir, one variant. A hit is a stat plus the stamp check, unless an earlier run died while
 * loading the file (a damaged addon can crash the process inside dlopen): then its sha256 decides.
 * Anything else extracts a verified copy to a temp path, loads it from there (a file already
 * loaded from the final path would be handed back by the dynamic linker however it changed on
 * disk) and only then renames it over the final path.
 */
function loadFromCache(embedded: EmbeddedNatives, root: CacheRoot, file: NativeFile): Loaded {
  const { manifest } = embedded;
  const versionDir = prepareVersionDir(root, cacheDirName(embedded));
  const target = join(versionDir, file.name);
  const state = cachedState(target, file, manifest);
  let rejected: string | undefined;
  if (state === "hit") {
    const crashed = crashedWhileLoading(target);
    if (crashed !== null && !matchesManifest(target, file)) {
      rejected = `an earlier omp (pid ${crashed}) died while loading ${target}, and its sha256 does not match this omp's addon`;
    } else {
      try {
        return { addon: withLoadingMarker(target, () => loadChecked(target)), path: target, state: "hit" };
      } catch (error) {
        rejected = describeError(error);
      }
    }
  } else if (state !== "absent") {
    rejected = state;
  }

  let extracted;
  try {
    extracted = extractToTemp(embedded, file, versionDir);
  } catch (error) {
    if (error instanceof UnsafeArchiveError) throw error;
    throw new DirUnusable(describeError(error));
  }
  releaseExtraction();
  try {
    const addon = loadChecked(extracted.path);
    renameSync(extracted.path, target);
    // A rename lost in a crash leaves no file, which the next run extracts again; only a file it
    // replaced must not come back, least of all without its loading marker, removed next.
    if (state !== "absent") syncDirectory(versionDir);
    clearStaleMarker(target);
    return rejected
      ? { addon, path: target, state: "repaired", note: `rejected the cached addon and replaced it: ${rejected}` }
      : { addon, path: target, state: "extracted" };
  } finally {
    discardTemp(extracted);
  }
}

function emptyReport(mode: NativesReport["mode"]): NativesReport {
  return {
    version: VERSION,
    platform: platformTag(),
    variant: null,
    variantReason: "",
    mode,
    configuredRoot: null,
    usedRoot: null,
    addonPath: null,
    state: "failed",
    notes: [],
    attempts: [],
    pruned: [],
    loadMs: 0,
  };
}

function failure(report: NativesReport, headline: string, advice: string[]): NativesLoadError {
  const tried = report.attempts.map((attempt) => `  - ${attempt.path}: ${attempt.error}`).join("\n");
  const variant = report.variant ? `, variant ${report.variant} (${report.variantReason})` : "";
  const message = [
    `${headline} (omp ${report.version}, ${report.platform}${variant}).`,
    tried ? `Tried:\n${tried}` : "",
    `What to do:\n${advice.map((line) => `  - ${line}`).join("\n")}`,
  ]
    .filter(Boolean)
    .join("\n");
  return new NativesLoadError(message, report);
}

function loadEmbedded(embedded: EmbeddedNatives, report: NativesReport): NativeAddon {
  const { manifest } = embedded;
  const dirName = cacheDirName(embedded);
  const choice = chooseVariant();
  report.variantReason = choice.reason;
  if (manifest.platform !== report.platform) {
    throw failure(report, `This omp binary is built for ${manifest.platform}, not for this ${report.platform} machine`, [
      `install the omp build for ${report.platform}`,
    ]);
  }
  const files = choice.order
    .map((variant) => manifest.files.find((file) => file.variant === variant))
    .filter((file): file is NativeFile => file !== undefined);
  if (files.length === 0) {
    throw failure(report, `This omp binary carries no addon for variant ${choice.order.join(" or ")}`, [
      "unset OMP_NATIVE_VARIANT, or install the omp build for this CPU",
    ]);
  }

  try {
    report.configuredRoot = primaryCacheRoot();
  } catch (error) {
    report.attempts.push({ path: "OMP_NATIVES_DIR", error: describeError(error) });
  }
  // The fallbacks are worked out only when the primary root fails, off the usual start-up.
  function* roots(): Generator<CacheRoot> {
    const primary = report.configuredRoot;
    if (primary) yield primary;
    for (const root of fallbackCacheRoots()) if (root.path !== primary?.path) yield root;
  }

  for (const root of roots()) {
    for (const file of files) {
      try {
        const loaded = loadFromCache(embedded, root, file);
        report.variant = file.variant;
        report.usedRoot = root;
        report.addonPath = loaded.path;
        report.state = loaded.state;
        if (loaded.note) report.notes.push(loaded.note);
        if (root !== report.configuredRoot) {
          const why = report.attempts.map((attempt) => attempt.error).join("; ");
          report.notes.push(`using the fallback cache ${root.path} (${root.source}) because: ${why}`);
        }
        if (loaded.state !== "hit") report.pruned = pruneNatives(root.path, dirName);
        return loaded.addon;
      } catch (error) {
        if (error instanceof UnsafeArchiveError) {
          report.attempts.push({ path: "embedded archive", error: error.message });
          throw failure(report, "This omp binary's embedded native addon failed its safety check; nothing was extracted", [
            "the omp binary is damaged or was tampered with: reinstall it from a verified release",
          ]);
        }
        report.attempts.push({ path: join(root.path, dirName, file.name), error: describeError(error) });
        if (error instanceof DirUnusable) break;
      }
    }
  }
  const primary = report.configuredRoot ? join(report.configuredRoot.path, dirName) : "the natives cache";
  throw failure(report, "omp could not load its native addon", [
    "set OMP_NATIVES_DIR to a directory you can write on a filesystem that allows executables (not mounted noexec)",
    `if a file listed above is damaged, delete ${primary} and run omp again`,
    "if the CPU variant is the problem, try OMP_NATIVE_VARIANT=baseline",
  ]);
}

/** Running from a source checkout: the addon that `bun run build:native` left in native/out. */
function loadFromSource(report: NativesReport): NativeAddon {
  const choice = chooseVariant();
  report.variantReason = choice.reason;
  const outDir = join(import.meta.dir, "..", "..", "native", "out");
  for (const variant of choice.order) {
    const path = join(outDir, addonFileName(report.platform, variant));
    try {
      const addon = loadChecked(path);
      report.variant = variant;
      report.addonPath = path;
      report.state = "source";
      return addon;
    } catch (error) {
      report.attempts.push({ path, error: describeError(error) });
    }
  }
  throw failure(report, "omp (running from source) could not load its native addon", [
    "build it: bun run build:native",
  ]);
}

let cached: { addon: NativeAddon; report: NativesReport } | null = null;

/** Loads the addon once per process; later calls return the same one. Throws NativesLoadError. */
export function loadNatives(): { addon: NativeAddon; report: NativesReport } {
  if (cached) return cached;
  const started = performance.now();
  const embedded = getEmbeddedNatives();
  const report = emptyReport(embedded ? "embedded" : "source");
  try {
    const addon = embedded ? loadEmbedded(embedded, report) : loadFromSource(report);
    cached = { addon, report };
    return cached;
  } finally {
    report.loadMs = performance.now() - started;
  }
}
