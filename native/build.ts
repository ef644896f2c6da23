/**
 * Builds the Rust addon for this machine into native/out, once per CPU variant, and only when its
 * inputs changed since the last build (`bun run build:native`; `--force` rebuilds anyway).
 * `--version <v>` stamps the addon for another omp version (into native/out/versions/<v>).
 *
 * Crate sources come from crates.io when it answers, else from Debian's crate directory
 * (/usr/share/cargo/registry, from the librust-*-dev packages). OMP_CRATES=debian|crates-io skips
 * the probe.
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join, relative } from "node:path";
import { parseArgs } from "node:util";
import type { Variant } from "../core/natives/manifest.ts";
import { addonFileName, launcherFileName, stampMarker } from "../core/natives/names.ts";
import { platformTag } from "../core/natives/variant.ts";
import { VERSION } from "../core/version.ts";

const NATIVE_DIR = import.meta.dir;
export const NATIVE_OUT = join(NATIVE_DIR, "out");
const DEBIAN_CRATES = "/usr/share/cargo/registry";
const DEBIAN_PACKAGES =
  "librust-grep-dev librust-ignore-dev librust-globset-dev librust-regex-dev librust-memchr-dev librust-libc-dev";

export const CPU_FLAGS: Record<Variant, string | null> = {
  modern: "x86-64-v3",
  baseline: "x86-64-v2",
  default: null,
};

export function variantsFor(arch: string = process.arch): Variant[] {
  return arch === "x64" ? ["modern", "baseline"] : ["default"];
}

/** The sandbox launcher's crate: not part of the addon, so changing one never rebuilds the other. */
const LAUNCHER_CRATE = join(NATIVE_DIR, "crates", "sandbox");

function sourceFiles(dir: string, skip: string | null = LAUNCHER_CRATE): string[] {
  const files: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    if (name === "target" || name === "out" || name === "Cargo.lock") continue;
    const path = join(dir, name);
    if (path === skip) continue;
    if (statSync(path).isDirectory()) files.push(...sourceFiles(path, skip));
    else if (/\.(rs|toml)$/.test(name)) files.push(path);
  }
  return files;
}

/**
 * Where the addon stamped for `version` goes: native/out for this checkout's version; any other
 * version (a release or test build of another version) gets a dir of its own, so it never replaces
 * the addon the dev build embeds.
 */
export function nativeOutDir(version: string = VERSION): string {
  return version === VERSION ? NATIVE_OUT : join(NATIVE_OUT, "versions", version);
}

/**
 * Another version changes the stamp, which recompiles the addon crate; a target dir of its own keeps
 * both the dev build and the other-version build incremental instead of relinking on every switch.
 */
function cargoTargetDir(variant: Variant, version: string): string {
  return version === VERSION ? join(NATIVE_DIR, "target", variant) : join(NATIVE_DIR, "target", "other-version", variant);
}

/**
 * A digest of the Rust sources (every .rs and .toml under native/) after `settings`, the rest of
 * what decides an addon's bytes; release/cross-addon.ts digests its cross builds the same way.
 */
export function sourcesDigest(settings: string, files: string[] = sourceFiles(NATIVE_DIR)): string {
  const hasher = new Bun.CryptoHasher("sha256");
  hasher.update(settings);
  for (const file of files) {
    hasher.update(relative(NATIVE_DIR, file));
    hasher.update("\0");
    hasher.update(readFileSync(file));
  }
  return hasher.digest("hex");
}

/** A digest of everything that decides the addon's bytes. */
function inputsDigest(variant: Variant, crates: string, version: string): string {
  return sourcesDigest(`${version}\0${variant}\0${CPU_FLAGS[variant]}\0${crates}\0${process.env.RUSTFLAGS ?? ""}\0`);
}

async function cratesIoReachable(): Promise<boolean> {
  try {
    const response = await fetch("https://index.crates.io/config.json", { signal: AbortSignal.timeout(3000) });
    return response.ok;
  } catch {
    return false;
  }
}

async function chooseCrateSource(): Promise<"crates-io" | "debian"> {
  const forced = process.env.OMP_CRATES;
  if (forced === "debian" || forced === "crates-io") return forced;
  if (await cratesIoReachable()) return "crates-io";
  if (existsSync(DEBIAN_CRATES)) return "debian";
  throw new Error(
    `crates.io is unreachable and Debian's crate directory ${DEBIAN_CRATES} is missing.\n` +
      `Install the crate sources: apt-get install ${DEBIAN_PACKAGES}`,
  );
}

function cargoSourceArgs(source: "crates-io" | "debian"): string[] {
  if (source === "crates-io") return [];
  return [
    "--config",
    'source.crates-io.replace-with="debian"',
    "--config",
    `source.debian.directory="${DEBIAN_CRATES}"`,
    "--offline",
  ];
}

/** rustup puts cargo in ~/.cargo/bin, which a non-login shell's PATH often lacks. */
function cargoPath(): string {
  const found = Bun.which("cargo") ?? [join(homedir(), ".cargo", "bin", "cargo")].find((path) => existsSync(path));
  if (!found) throw new Error("cargo not found: install Rust (apt-get install cargo, or rustup)");
  return found;
}

function libraryName(): string {
  if (process.platform === "darwin") return "libomp_natives.dylib";
  if (process.platform === "win32") return "omp_natives.dll";
  return "libomp_natives.so";
}

function hasStamp(path: string, version: string): boolean {
  return readFileSync(path).includes(Buffer.from(stampMarker(version)));
}

async function buildVariant(variant: Variant, source: "crates-io" | "debian", force: boolean, version: string): Promise<string> {
  const outDir = nativeOutDir(version);
  const output = join(outDir, addonFileName(platformTag(), variant));
  const digestFile = `${output}.inputs`;
  const digest = inputsDigest(variant, source, version);
  if (!force && existsSync(output) && existsSync(digestFile) && readFileSync(digestFile, "utf8") === digest) {
    console.error(`native: ${variant} is up to date`);
    return output;
  }
  const targetDir = cargoTargetDir(variant, version);
  const cpu = CPU_FLAGS[variant];
  // The napi_* symbols come from the host process; macOS's linker must be told to leave them unresolved.
  const darwinLink = process.platform === "darwin" ? "-C link-arg=-undefined -C link-arg=dynamic_lookup" : "";
  const rustflags = [process.env.RUSTFLAGS ?? "", cpu ? `-C target-cpu=${cpu}` : "", darwinLink].join(" ").trim();
  const args = [cargoPath(), ...cargoSourceArgs(source), "build", "--release", "-p", "omp-natives", "--manifest-path", join(NATIVE_DIR, "Cargo.toml")];
  console.error(`native: building ${variant}${cpu ? ` (${cpu})` : ""} from ${source}`);
  const started = performance.now();
  const child = Bun.spawn(args, {
    env: { ...process.env, CARGO_TARGET_DIR: targetDir, RUSTFLAGS: rustflags, OMP_VERSION: version },
    stdio: ["ignore", "inherit", "inherit"],
  });
  if ((await child.exited) !== 0) throw new Error(`cargo build failed for the ${variant} addon (see the output above)`);

  const built = join(targetDir, "release", libraryName());
  if (!hasStamp(built, version)) throw new Error(`${built} lacks the stamp for omp ${version}; is OMP_VERSION reaching build.rs?`);
  mkdirSync(outDir, { recursive: true });
  const temp = `${output}.tmp-${process.pid}`;
  copyFileSync(built, temp);
  renameSync(temp, output);
  writeFileSync(digestFile, digest);
  console.error(`native: ${variant} built in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return output;
}

/**
 * The sandbox launcher (native/crates/sandbox): one build for every CPU variant, since it does no
 * work worth tuning, in a target dir of its own so its flags never force the addon to rebuild.
 */
async function buildLauncher(source: "crates-io" | "debian", force: boolean, version: string): Promise<string> {
  const output = join(nativeOutDir(version), launcherFileName(platformTag()));
  const digestFile = `${output}.inputs`;
  const digest = sourcesDigest(`launcher\0static\0${source}\0${process.env.RUSTFLAGS ?? ""}\0`, [join(NATIVE_DIR, "Cargo.toml"), ...sourceFiles(LAUNCHER_CRATE, null)]);
  if (!force && existsSync(output) && existsSync(digestFile) && readFileSync(digestFile, "utf8") === digest) {
    console.error("native: sandbox launcher is up to date");
    return output;
  }
  const targetDir = join(NATIVE_DIR, "target", "launcher");
  const child = Bun.spawn([cargoPath(), ...cargoSourceArgs(source), "build", "--release", "-p", "omp-sandbox", "--manifest-path", join(NATIVE_DIR, "Cargo.toml")], {
    // Linked statically: the dynamic loader's work would be a fifth of the launcher's cost per command.
    env: { ...process.env, CARGO_TARGET_DIR: targetDir, RUSTFLAGS: `${process.env.RUSTFLAGS ?? ""} -C target-feature=+crt-static`.trim() },
    stdio: ["ignore", "inherit", "inherit"],
  });
  if ((await child.exited) !== 0) throw new Error("cargo build failed for the sandbox launcher (see the output above)");
  mkdirSync(nativeOutDir(version), { recursive: true });
  const temp = `${output}.tmp-${process.pid}`;
  copyFileSync(join(targetDir, "release", "omp-sandbox"), temp);
  renameSync(temp, output);
  writeFileSync(digestFile, digest);
  console.error("native: sandbox launcher built");
  return output;
}

/** The crate source changed: a Cargo.lock resolved against the other one does not resolve. */
function resetLockOnSourceChange(source: string): void {
  const marker = join(NATIVE_DIR, "target", "crate-source");
  const previous = existsSync(marker) ? readFileSync(marker, "utf8") : null;
  if (previous !== source) rmSync(join(NATIVE_DIR, "Cargo.lock"), { force: true });
  mkdirSync(join(NATIVE_DIR, "target"), { recursive: true });
  writeFileSync(marker, source);
}

/** `version` (default: this checkout's) is the stamp baked into the addon; see nativeOutDir. */
export async function buildNative(options: { force?: boolean; version?: string } = {}): Promise<string[]> {
  const source = await chooseCrateSource();
  resetLockOnSourceChange(source);
  const version = options.version ?? VERSION;
  const outputs: string[] = [];
  for (const variant of variantsFor()) outputs.push(await buildVariant(variant, source, options.force ?? false, version));
  if (process.platform === "linux") outputs.push(await buildLauncher(source, options.force ?? false, version));
  return outputs;
}

/** The Rust unit and integration tests of every crate, against the same crate source as the build. */
export async function testNative(): Promise<void> {
  const source = await chooseCrateSource();
  resetLockOnSourceChange(source);
  const child = Bun.spawn([cargoPath(), ...cargoSourceArgs(source), "test", "--workspace", "--manifest-path", join(NATIVE_DIR, "Cargo.toml")], {
    env: { ...process.env, CARGO_TARGET_DIR: join(NATIVE_DIR, "target", "test"), OMP_VERSION: VERSION },
    stdio: ["ignore", "inherit", "inherit"],
  });
  if ((await child.exited) !== 0) throw new Error("cargo test failed (see the output above)");
}

if (import.meta.main) {
  try {
    const { values } = parseArgs({ options: { force: { type: "boolean" }, version: { type: "string" }, test: { type: "boolean" } } });
    if (values.test) await testNative();
    else await buildNative({ force: values.force, version: values.version });
  } catch (error) {
    console.error(`native build failed: ${(error as Error).message}`);
    process.exit(1);
  }
}
