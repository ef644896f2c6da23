import { copyFileSync, cpSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { addonFileName, stampMarker } from "../core/natives/names.ts";
import { sourcesDigest } from "../native/build.ts";

/**
 * The native addon for another Linux architecture, built on this machine with Debian's cross
 * toolchain (rustc-web with libstd-rust-web-dev for the target architecture, and the target's gcc
 * as linker) from Debian's crate sources, offline. rustup's toolchain usually lacks the target's
 * standard library, and installing it needs the network; Debian's packages do not.
 *
 * Output: release/out/.cross/<platform>/<version>/omp_natives.<platform>.node, rebuilt only when
 * the addon's sources, the version or the toolchain changed.
 */

const ROOT = join(import.meta.dir, "..");
const NATIVE = join(ROOT, "native");
const DEBIAN_CRATES = "/usr/share/cargo/registry";

export interface CrossPlatform {
  /** `linux-arm64`: the platform tag the loader compares with `${process.platform}-${process.arch}`. */
  platform: string;
  triple: string;
  linker: string;
  /** ELF e_machine of the target, to check what the linker produced. */
  elfMachine: number;
  /** For error messages: what to install. */
  packages: string;
}

export const CROSS_PLATFORMS: Record<string, CrossPlatform> = {
  "linux-arm64": {
    platform: "linux-arm64",
    triple: "aarch64-unknown-linux-gnu",
    linker: "aarch64-linux-gnu-gcc",
    elfMachine: 183,
    packages: "dpkg --add-architecture arm64 && apt-get update && apt-get install rustc-web cargo-web libstd-rust-web-dev:arm64 gcc-aarch64-linux-gnu",
  },
};

// Debian's rustc-web and cargo-web install as /usr/bin/rustc and /usr/bin/cargo.
const DEBIAN_RUSTC = "/usr/bin/rustc";
const DEBIAN_CARGO = "/usr/bin/cargo";

/** Why this machine cannot cross-build for `cross`, or null when it can. */
export function crossToolchainMissing(cross: CrossPlatform): string | null {
  const std = join("/usr/lib/rustlib", cross.triple, "lib");
  const missing = [DEBIAN_RUSTC, DEBIAN_CARGO, std, DEBIAN_CRATES].filter((path) => !existsSync(path));
  if (!Bun.which(cross.linker)) missing.push(cross.linker);
  return missing.length === 0 ? null : `missing ${missing.join(", ")}; install with: ${cross.packages}`;
}

function toolchainVersion(): string {
  return Bun.spawnSync([DEBIAN_RUSTC, "--version"]).stdout.toString().trim();
}

function inputsDigest(cross: CrossPlatform, version: string): string {
  return sourcesDigest(`${cross.triple}\0${version}\0${toolchainVersion()}\0`);
}

/** Builds (or finds up to date) the addon for `cross` stamped for `version`; returns its directory. */
export async function buildCrossAddon(cross: CrossPlatform, version: string): Promise<string> {
  const missing = crossToolchainMissing(cross);
  if (missing) throw new Error(`cannot build the ${cross.platform} addon: ${missing}`);
  const outDir = join(ROOT, "release", "out", ".cross", cross.platform, version);
  const output = join(outDir, addonFileName(cross.platform, "default"));
  const digestFile = `${output}.inputs`;
  const digest = inputsDigest(cross, version);
  if (existsSync(output) && existsSync(digestFile) && readFileSync(digestFile, "utf8") === digest) return outDir;

  const targetDir = join(NATIVE, "target", `cross-${cross.platform}`);
  // A copy of the workspace, so its Cargo.lock (resolved against Debian's crates) is its own and
  // never fights the host build's over native/Cargo.lock.
  const workspace = join(targetDir, "workspace");
  rmSync(join(workspace, "crates"), { recursive: true, force: true });
  mkdirSync(workspace, { recursive: true });
  copyFileSync(join(NATIVE, "Cargo.toml"), join(workspace, "Cargo.toml"));
  cpSync(join(NATIVE, "crates"), join(workspace, "crates"), { recursive: true, preserveTimestamps: true, filter: (path) => !/\/(target|out)$/.test(path) });
  const started = performance.now();
  console.error(`cross: building the ${cross.platform} addon for omp ${version} with ${toolchainVersion()}`);
  const child = Bun.spawn(
    [
      DEBIAN_CARGO,
      "--config",
      'source.crates-io.replace-with="debian"',
      "--config",
      `source.debian.directory="${DEBIAN_CRATES}"`,
      "--offline",
      "build",
      "--release",
      "-p",
      "omp-natives",
      "--target",
      cross.triple,
      "--manifest-path",
      join(workspace, "Cargo.toml"),
    ],
    {
      env: {
        ...process.env,
        RUSTC: DEBIAN_RUSTC,
        CARGO_TARGET_DIR: targetDir,
        OMP_VERSION: version,
        [`CARGO_TARGET_${cross.triple.toUpperCase().replace(/-/g, "_")}_LINKER`]: cross.linker,
      },
      stdio: ["ignore", "inherit", "inherit"],
    },
  );
  if ((await child.exited) !== 0) throw new Error(`cargo build for ${cross.triple} failed (see the output above)`);
  const built = join(targetDir, cross.triple, "release", "libomp_natives.so");
  const addon = readFileSync(built);
  if (!addon.includes(Buffer.from(stampMarker(version)))) throw new Error(`${built} lacks the stamp for omp ${version}`);
  if (addon.readUInt16LE(0x12) !== cross.elfMachine) throw new Error(`${built} is not an ELF file for ${cross.triple}`);
  mkdirSync(outDir, { recursive: true });
  copyFileSync(built, `${output}.tmp`);
  renameSync(`${output}.tmp`, output);
  writeFileSync(digestFile, digest);
  console.error(`cross: ${cross.platform} addon built in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return outDir;
}
