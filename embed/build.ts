/**
 * `bun run build`: the native addon (when its sources changed), the natives archive, and then
 * dist/omp, one executable that carries both.
 *
 * Options, for tests and release builds:
 *   --outfile <path>          where the executable goes (default dist/omp)
 *   --natives-archive <path>  embed this archive instead of the packed one, keeping the real manifest
 *   --skip-native             use native/out as it is
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { parseArgs } from "node:util";
import { VERSION } from "../core/version.ts";
import { NATIVE_OUT, buildNative, variantsFor } from "../native/build.ts";
import { packNatives } from "./pack.ts";
import { platformTag } from "./variant.ts";

const ROOT = resolve(import.meta.dir, "..");

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
];

function importPath(from: string, to: string): string {
  const path = relative(from, to);
  return path.startsWith(".") ? path : `./${path}`;
}

export async function build(options: { outfile: string; nativesArchive?: string; skipNative?: boolean }): Promise<void> {
  const started = performance.now();
  if (!options.skipNative) await buildNative();
  const work = join(ROOT, "dist", ".build", `${process.pid}`);
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  try {
    const packed = await packNatives({
      addonDir: NATIVE_OUT,
      outDir: work,
      platform: platformTag(),
      version: VERSION,
      variants: variantsFor(),
    });
    const archive = options.nativesArchive ? resolve(options.nativesArchive) : packed.archivePath;
    // The payload registers in its own module, imported before the CLI, so it is in place before
    // any CLI code runs.
    writeFileSync(
      join(work, "payload.ts"),
      `import archivePath from ${JSON.stringify(importPath(work, archive))} with { type: "file" };\n` +
        `import { setEmbeddedNatives } from ${JSON.stringify(importPath(work, join(ROOT, "embed", "payload.ts")))};\n` +
        `setEmbeddedNatives({ archivePath, manifest: ${JSON.stringify(packed.manifest)} });\n`,
    );
    writeFileSync(
      join(work, "entry.ts"),
      `import "./payload.ts";\n` +
        `import { main } from ${JSON.stringify(importPath(work, join(ROOT, "cli", "main.ts")))};\n` +
        `await main(process.argv.slice(2));\n`,
    );
    mkdirSync(dirname(options.outfile), { recursive: true });
    const child = Bun.spawn([process.execPath, "build", ...COMPILE_FLAGS, join(work, "entry.ts"), "--outfile", options.outfile], {
      cwd: ROOT,
      stdio: ["ignore", "ignore", "inherit"],
    });
    if ((await child.exited) !== 0) throw new Error("bun build --compile failed (see the output above)");
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  console.error(`built ${relative(process.cwd(), options.outfile)} (omp ${VERSION}) in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: {
      outfile: { type: "string" },
      "natives-archive": { type: "string" },
      "skip-native": { type: "boolean" },
    },
  });
  try {
    await build({
      outfile: resolve(values.outfile ?? join(ROOT, "dist", "omp")),
      nativesArchive: values["natives-archive"],
      skipNative: values["skip-native"],
    });
  } catch (error) {
    console.error(`build failed: ${(error as Error).message}`);
    process.exit(1);
  }
}
