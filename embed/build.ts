/**
 * `bun run build`: the native addon (when its sources changed), its archives (one per CPU variant),
 * and then dist/omp, one executable that carries them.
 *
 * Options, for tests and release builds:
 *   --outfile <path>          where the executable goes (default dist/omp)
 *   --natives-archive <variant>=<path>
 *                             embed this archive as the variant's (modern, baseline or default)
 *                             instead of the packed one, keeping the real manifest; repeatable
 *   --skip-native             use native/out as it is
 *   --version <v>             build an omp that reports version v (its addon is built and stamped
 *                             for v into native/out/versions/<v>; release and update tests need it)
 *   --release-key <key>       trust this Ed25519 public key for updates instead of the official one
 *                             (test releases, forks): base64 SPKI, a PEM file's path, or PEM text
 *                             given as --release-key="$(cat key.pub)" (a value starting with
 *                             dashes needs the = form)
 */
import type { BunPlugin } from "bun";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { parseArgs } from "node:util";
import { VERSION } from "../core/version.ts";
import { normalizePublicKey } from "../core/update/signature.ts";
import { buildNative, nativeOutDir, variantsFor } from "../native/build.ts";
import { extraSources } from "../core/natives/extras.ts";
import { packNatives } from "./pack.ts";
import { writeProtocolFiles } from "./protocol-files.ts";
import { declarationsPlugin } from "./declarations-plugin.ts";
import { Variant } from "../core/natives/manifest.ts";
import { platformTag } from "../core/natives/variant.ts";

const ROOT = resolve(import.meta.dir, "..");

/** What `omp --version` answers to, as commander's program also declares it (`-v, --version`). */
const VERSION_FLAGS = ["--version", "-v", "-V"];

/**
 * JavaScriptCore's tier-up thresholds, scaled, that dist/omp starts with: start-up code runs once,
 * and compiling it to machine code costs the JIT's memory and paging its compilers in for nothing
 * (`omp -p hi` peaks 3.6 MiB lower, bench/results/rss-floor.md). 1,000× and 100,000× peak the same
 * (no function reaches the baseline JIT on `-p hi` at 100×). The print, rpc and acp modes keep it to
 * their end; the interactive mode and other commands go back to the normal policy (core/agent/start-up-jit.ts).
 */
export const START_UP_JIT_POLICY = 100;

/**
 * Which functions `omp -p hi` runs, recorded from a run of dist/omp (embed/record-bytecode-order.ts):
 * the build lays their bytecode out together at the front, so a run pages in that part of the
 * executable instead of pages scattered over all of it (4 MiB less at the peak). A profile from an
 * older build still applies; functions it does not know are laid out as unused ones.
 */
export const BYTECODE_ORDER = join(import.meta.dir, "bytecode-order.txt");

/** How the benchmarks compile their baseline programs, as compile() below compiles omp. */
export const COMPILE_FLAGS = [
  "--compile",
  "--minify",
  "--bytecode",
  "--format=esm",
  // Each lazily imported command becomes its own chunk, loaded only when used: without it the
  // whole program is evaluated up front and `omp --version` takes twice as long.
  "--splitting",
  "--no-compile-autoload-dotenv",
  "--no-compile-autoload-bunfig",
  "--no-compile-autoload-tsconfig",
  "--no-compile-autoload-package-json",
  `--compile-jit-policy=${START_UP_JIT_POLICY}`,
];

function importPath(from: string, to: string): string {
  const path = relative(from, to);
  return path.startsWith(".") ? path : `./${path}`;
}

/**
 * Another bun runtime than the one building (`bun-linux-arm64`, `bun-linux-x64-baseline`), for
 * release builds: `platform` is the addon's platform tag and `addonDir` holds the addon built for it.
 */
export interface CrossTarget {
  bunTarget: string;
  platform: string;
  addonDir: string;
}

export interface BuildOptions {
  outfile: string;
  /** Archives to embed instead of the packed ones, by variant. */
  nativesArchives?: Partial<Record<Variant, string>>;
  skipNative?: boolean;
  version?: string;
  releaseKey?: string;
  cross?: CrossTarget;
  /** Release builds leave them out: a release directory holds only what its manifest and sums cover, and `omp protocol schema|client` prints both. */
  withoutProtocolFiles?: boolean;
}

/**
 * `bun build --compile`, in process: bundler plugins give the bundle what it cannot read at run
 * time (the tool declarations' folder, embed/declarations-plugin.ts) and, for a build of another
 * version, package.json with that version (core/version.ts reads it from there).
 */
async function compile(entry: string, outfile: string, version: string, bunTarget?: string): Promise<void> {
  const packageJson = join(ROOT, "package.json");
  const versionPlugin: BunPlugin = {
    name: "omp-version",
    setup(builder) {
      builder.onLoad({ filter: /package\.json$/ }, async (args) => {
        const json = await Bun.file(args.path).json();
        return { contents: JSON.stringify(args.path === packageJson ? { ...json, version } : json), loader: "json" };
      });
    },
  };
  const result = await Bun.build({
    entrypoints: [entry],
    compile: {
      outfile,
      ...(bunTarget ? { target: bunTarget as Bun.Build.CompileTarget } : {}),
      autoloadDotenv: false,
      autoloadBunfig: false,
      autoloadTsconfig: false,
      autoloadPackageJson: false,
      jitPolicy: START_UP_JIT_POLICY,
      bytecodeOrder: existsSync(BYTECODE_ORDER) && BYTECODE_ORDER,
    },
    minify: true,
    bytecode: true,
    format: "esm",
    // As COMPILE_FLAGS says: lazily imported commands stay out of start-up.
    splitting: true,
    root: ROOT,
    plugins: [declarationsPlugin, ...(version === VERSION ? [] : [versionPlugin])],
  });
  if (!result.success) throw new Error(`bun build --compile failed:\n${result.logs.map(String).join("\n")}`);
  if (!existsSync(outfile)) throw new Error(`bun build --compile reported success but ${outfile} is missing (outputs: ${result.outputs.map((output) => output.path).join(", ")})`);
}

export async function build(options: BuildOptions): Promise<void> {
  const started = performance.now();
  const version = options.version ?? VERSION;
  const releaseKey = options.releaseKey === undefined ? undefined : normalizePublicKey(options.releaseKey);
  const platform = options.cross?.platform ?? platformTag();
  // A cross build brings its own addon; only this machine's is built here.
  if (!options.skipNative && platform === platformTag()) await buildNative({ version });
  const work = join(ROOT, "dist", ".build", `${process.pid}`);
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  try {
    const packed = await packNatives({
      addonDir: options.cross?.addonDir ?? nativeOutDir(version),
      outDir: work,
      platform,
      version,
      variants: variantsFor(platform.split("-")[1]),
    });
    const extras = extraSources(platform).filter((extra) => {
      if (existsSync(extra.source)) return true;
      console.error(`build: ${extra.source} is missing (npm install?); this omp is built without ${extra.name}`);
      return false;
    });
    const archives = Object.entries({ ...packed.archives, ...options.nativesArchives }).map(([variant, path], index) => ({
      variant,
      path: resolve(path),
      binding: `archive${index}`,
    }));
    // The payload registers in its own module, imported before the CLI, so it is in place before
    // any CLI code runs.
    writeFileSync(
      join(work, "payload.ts"),
      archives.map((archive) => `import ${archive.binding} from ${JSON.stringify(importPath(work, archive.path))} with { type: "file" };\n`).join("") +
        `import { setEmbeddedNatives } from ${JSON.stringify(importPath(work, join(ROOT, "core", "natives", "payload.ts")))};\n` +
        (packed.launcherArchive ? `import launcherArchive from ${JSON.stringify(importPath(work, packed.launcherArchive))} with { type: "file" };\n` : "") +
        `setEmbeddedNatives({ archives: { ${archives.map((archive) => `${JSON.stringify(archive.variant)}: ${archive.binding}`).join(", ")} }, ${packed.launcherArchive ? "launcherArchive, " : ""}manifest: ${JSON.stringify(packed.manifest)} });\n` +
        extras.map((extra, index) => `import extra${index} from ${JSON.stringify(importPath(work, extra.source))} with { type: "file" };\n`).join("") +
        `import { setEmbeddedExtras } from ${JSON.stringify(importPath(work, join(ROOT, "core", "natives", "payload.ts")))};\n` +
        `setEmbeddedExtras(${embeddedExtrasSource(extras, packed.manifest.mtime)});\n` +
        (releaseKey
          ? `import { trustReleaseKey } from ${JSON.stringify(importPath(work, join(ROOT, "core", "update", "release-key.ts")))};\n` +
            `trustReleaseKey(${JSON.stringify(releaseKey)});\n`
          : ""),
    );
    // `omp --version` is answered here, before a second module is loaded: each chunk the runtime
    // resolves and evaluates (the CLI's, the one package.json sits in, the payload's) adds to the
    // ~1 ms the binary costs over an empty program of its size (bench/results/binary.md). Bun.write,
    // not process.stdout: creating that Node stream costs about 18 ms in a compiled binary.
    writeFileSync(
      join(work, "entry.ts"),
      `const argv = process.argv.slice(2);\n` +
        `if (argv.length === 1 && ${JSON.stringify(VERSION_FLAGS)}.includes(argv[0])) {\n` +
        `  await Bun.write(Bun.stdout, ${JSON.stringify(`omp/${version}\n`)});\n` +
        `} else {\n` +
        `  await import("./payload.ts");\n` +
        `  const { main } = await import(${JSON.stringify(importPath(work, join(ROOT, "cli", "main.ts")))});\n` +
        `  await main(argv);\n` +
        `}\n`,
    );
    mkdirSync(dirname(options.outfile), { recursive: true });
    await compile(join(work, "entry.ts"), options.outfile, version, options.cross?.bunTarget);
    if (!options.withoutProtocolFiles) writeProtocolFiles(dirname(options.outfile));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  console.error(`built ${relative(process.cwd(), options.outfile)} (omp ${version}) in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

/** The setEmbeddedExtras argument as source: each file's size and sha256, its path the import binding `extra<i>`. */
function embeddedExtrasSource(extras: { name: string; source: string }[], mtime: number): string {
  const files = extras.map((extra, index) => {
    const data = readFileSync(extra.source);
    const sha256 = new Bun.CryptoHasher("sha256").update(data).digest("hex");
    return `{ name: ${JSON.stringify(extra.name)}, path: extra${index}, size: ${data.length}, sha256: ${JSON.stringify(sha256)} }`;
  });
  return `{ mtime: ${mtime}, files: [${files.join(", ")}] }`;
}

/** `--natives-archive modern=path` values, by variant. */
function parseArchiveOptions(values: string[]): Partial<Record<Variant, string>> {
  const archives: Partial<Record<Variant, string>> = {};
  for (const value of values) {
    const at = value.indexOf("=");
    const variant = Variant.safeParse(value.slice(0, at));
    if (at === -1 || !variant.success) throw new Error(`--natives-archive wants <variant>=<path> with a variant of ${Variant.options.join(", ")}, got ${JSON.stringify(value)}`);
    archives[variant.data] = value.slice(at + 1);
  }
  return archives;
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: {
      outfile: { type: "string" },
      "natives-archive": { type: "string", multiple: true },
      "skip-native": { type: "boolean" },
      version: { type: "string" },
      "release-key": { type: "string" },
    },
  });
  try {
    await build({
      outfile: resolve(values.outfile ?? join(ROOT, "dist", "omp")),
      nativesArchives: parseArchiveOptions(values["natives-archive"] ?? []),
      skipNative: values["skip-native"],
      version: values.version,
      releaseKey: values["release-key"] && existsSync(values["release-key"]) ? readFileSync(values["release-key"], "utf8") : values["release-key"],
    });
  } catch (error) {
    console.error(`build failed: ${(error as Error).message}`);
    process.exit(1);
  }
}
