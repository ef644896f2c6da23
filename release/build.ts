/**
 * Builds a release into release/out/<version>/ (see core/update/release-manifest.ts for the layout):
 *
 *   OMP_RELEASE_KEY="$(cat release-key.pem)" bun release/build.ts --version 1.2.3 [--channel stable|canary]
 *
 * Options:
 *   --channel stable|canary   the channel the release goes to (default stable; stable also
 *                             advances canary when canary is behind)
 *   --out <dir>               the release tree's root (default release/out)
 *   --base-url <url>          where the tree will be served (default https://omp.sh/releases):
 *                             install.sh's default and the Homebrew formula's urls
 *   --targets <list>          comma-separated targets to compile here (default: all this machine
 *                             can: its own; on linux-x64 also linux-x64-baseline, and linux-arm64
 *                             when Debian's arm64 cross toolchain is installed, see cross-addon.ts)
 *   --prebuilt <target>=<path>  add a binary built elsewhere (a CI runner of that target); repeatable
 *   --no-build                only the --prebuilt binaries, nothing compiled here
 *
 * The full matrix runs in release/ci/release.yml. The binaries trust the public half of
 * OMP_RELEASE_KEY, as does the install.sh written here.
 */
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { parseArgs } from "node:util";
import { describeProgram } from "../cli/program/program.ts";
import { UpdateChannel } from "../core/config/settings-schema.ts";
import { DEFAULT_RELEASE_URL } from "../core/update/remote-release.ts";
import {
  ARCHIVED_BINARY,
  ReleaseManifest,
  ReleaseTarget,
  ReleaseVersion,
  type TargetArtifacts,
  archiveFileName,
  binaryFileName,
  bundleFileName,
} from "../core/update/release-manifest.ts";
import { formatSha256Sums, sha256Hex } from "../core/update/sha256sums.ts";
import { currentTarget } from "../core/update/target.ts";
import { type CrossTarget, build } from "../embed/build.ts";
import { nativeOutDir } from "../native/build.ts";
import { advanceChannels } from "./channels.ts";
import { generateCompletions } from "../cli/program/completions.ts";
import { CROSS_PLATFORMS, buildCrossAddon, crossToolchainMissing } from "./cross-addon.ts";
import { homebrewFormula } from "./homebrew.ts";
import { installScript } from "./install-script.ts";
import { offlineGuide } from "./offline-guide.ts";
import { type SigningKey, signFile, signingKeyFromEnv } from "./sign.ts";
import { type TarFile, writeTarGz } from "./tar-writer.ts";

const ROOT = resolve(import.meta.dir, "..");

export interface ReleaseOptions {
  version: string;
  channel: UpdateChannel;
  outRoot: string;
  baseUrl: string;
  prebuilt: Map<ReleaseTarget, string>;
  /** Targets to compile on this machine. */
  build: ReleaseTarget[];
  key: SigningKey;
}

const log = (line: string) => console.error(`release: ${line}`);

function artifactOf(dir: string, file: string): { file: string; size: number; sha256: string } {
  const data = readFileSync(join(dir, file));
  return { file, size: data.length, sha256: sha256Hex(data) };
}

const hostTarget = currentTarget(process.execPath);

/** What this machine can compile besides its own target, and how. */
async function crossBuild(target: ReleaseTarget, version: string): Promise<CrossTarget> {
  if (hostTarget === "linux-x64" && target === "linux-x64-baseline") {
    return { bunTarget: "bun-linux-x64-baseline", platform: "linux-x64", addonDir: nativeOutDir(version) };
  }
  const cross = CROSS_PLATFORMS[target];
  if (hostTarget === "linux-x64" && cross) return { bunTarget: `bun-${target}`, platform: cross.platform, addonDir: await buildCrossAddon(cross, version) };
  throw new Error(`${target} cannot be built on this ${hostTarget ?? process.platform} machine; build it on its own runner and pass --prebuilt`);
}

/** The targets this machine compiles when --targets is not given. */
export function localTargets(): ReleaseTarget[] {
  if (!hostTarget) return [];
  if (hostTarget !== "linux-x64") return [hostTarget];
  const arm64 = CROSS_PLATFORMS["linux-arm64"]!;
  return crossToolchainMissing(arm64) ? ["linux-x64", "linux-x64-baseline"] : ["linux-x64", "linux-x64-baseline", "linux-arm64"];
}

/** How to run a binary of `target` here for its smoke test: directly, under qemu, or not at all. */
function runnerFor(target: ReleaseTarget): string[] | null {
  if (target === hostTarget || (hostTarget === "linux-x64" && target === "linux-x64-baseline")) return [];
  // JavaScriptCore's JIT hangs under qemu-user; its interpreter runs --version in a second or two.
  if (hostTarget === "linux-x64" && target === "linux-arm64" && Bun.which("qemu-aarch64")) return ["env", "BUN_JSC_useJIT=0", "qemu-aarch64", "-L", "/usr/aarch64-linux-gnu"];
  return null;
}

async function smokeRun(path: string, target: ReleaseTarget, version: string): Promise<void> {
  const runner = runnerFor(target);
  if (!runner) return log(`${target}: cannot run here, no smoke test`);
  const child = Bun.spawn([...runner, path, "--version"], { stdio: ["ignore", "pipe", "pipe"], env: { PATH: process.env.PATH ?? "" }, timeout: 120_000 });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  if (code !== 0 || stdout !== `omp/${version}\n`) throw new Error(`${path} --version${runner.length ? ` (under ${runner.join(" ")})` : ""} printed ${JSON.stringify(stdout + stderr)}, exit ${child.signalCode ?? code}`);
}

/** The binary for `target`, compiled here or copied from --prebuilt, smoke-run wherever it can run. */
async function placeBinary(options: ReleaseOptions, dir: string, target: ReleaseTarget): Promise<void> {
  const path = join(dir, binaryFileName(target));
  const prebuilt = options.prebuilt.get(target);
  if (prebuilt) copyFileSync(prebuilt, path);
  else {
    const cross = target === hostTarget ? undefined : await crossBuild(target, options.version);
    await build({ outfile: path, version: options.version, releaseKey: options.key.publicKey, cross, withoutProtocolFiles: true });
  }
  chmodSync(path, 0o755);
  await smokeRun(path, target, options.version);
}

function archiveFiles(top: string, binary: Uint8Array, completions: ReturnType<typeof generateCompletions>): TarFile[] {
  const text = (name: string) => new Uint8Array(readFileSync(join(ROOT, name)));
  const encode = (value: string) => new TextEncoder().encode(value);
  return [
    { name: `${top}/${ARCHIVED_BINARY}`, data: binary, mode: 0o755 },
    { name: `${top}/LICENSE`, data: text("LICENSE"), mode: 0o644 },
    { name: `${top}/README.md`, data: text("README.md"), mode: 0o644 },
    { name: `${top}/completions/omp.bash`, data: encode(completions.bash), mode: 0o644 },
    { name: `${top}/completions/_omp`, data: encode(completions.zsh), mode: 0o644 },
    { name: `${top}/completions/omp.fish`, data: encode(completions.fish), mode: 0o644 },
  ];
}

export async function buildRelease(options: ReleaseOptions): Promise<string> {
  const started = performance.now();
  const { version } = options;
  const dir = join(options.outRoot, version);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const date = new Date();
  const mtime = Math.floor(date.getTime() / 1000);

  const targets = new Set<ReleaseTarget>([...options.prebuilt.keys(), ...options.build]);
  if (targets.size === 0) throw new Error("nothing to release: no target to build here and no --prebuilt");

  const completions = generateCompletions(describeProgram({ code: 0 }));
  const manifestTargets: Partial<Record<ReleaseTarget, TargetArtifacts>> = {};
  for (const target of [...targets].sort()) {
    log(`${target}: binary`);
    await placeBinary(options, dir, target);
    const binary = new Uint8Array(readFileSync(join(dir, binaryFileName(target))));
    const archive = archiveFileName(version, target);
    log(`${target}: ${archive}`);
    writeFileSync(join(dir, archive), writeTarGz(archiveFiles(`omp-${version}-${target}`, binary, completions), mtime));
    manifestTargets[target] = { ...artifactOf(dir, archive), binary: artifactOf(dir, binaryFileName(target)) };
  }

  const install = installScript(readFileSync(join(import.meta.dir, "install.sh"), "utf8"), options.key.publicKey, options.baseUrl);
  writeFileSync(join(dir, "install.sh"), install, { mode: 0o755 });
  const manifest = ReleaseManifest.parse({ format: 1, version, channel: options.channel, date: date.toISOString(), targets: manifestTargets });
  writeFileSync(join(dir, "manifest.json"), `${JSON.stringify(manifest, null, 2)}\n`);

  const listed = ["install.sh", "manifest.json", ...Object.values(manifestTargets).flatMap((entry) => [entry.file, entry.binary.file])];
  writeFileSync(join(dir, "SHA256SUMS"), formatSha256Sums(listed.map((file) => [file, artifactOf(dir, file).sha256])));
  await signFile(join(dir, "SHA256SUMS"), options.key);
  writeFileSync(join(dir, "omp.rb"), homebrewFormula(manifest, options.baseUrl));

  const sums = readFileSync(join(dir, "SHA256SUMS"));
  const signature = readFileSync(join(dir, "SHA256SUMS.sig"));
  for (const target of Object.keys(manifestTargets) as ReleaseTarget[]) {
    const bundle = bundleFileName(version, target);
    const top = bundle.replace(/\.tar\.gz$/, "");
    log(`${target}: ${bundle}`);
    const binaryName = binaryFileName(target);
    const files: TarFile[] = [
      { name: `${top}/${binaryName}`, data: new Uint8Array(readFileSync(join(dir, binaryName))), mode: 0o755 },
      { name: `${top}/SHA256SUMS`, data: new Uint8Array(sums), mode: 0o644 },
      { name: `${top}/SHA256SUMS.sig`, data: new Uint8Array(signature), mode: 0o644 },
      { name: `${top}/install.sh`, data: new TextEncoder().encode(install), mode: 0o755 },
      { name: `${top}/OFFLINE.md`, data: new TextEncoder().encode(offlineGuide(version, target, binaryName, bundle)), mode: 0o644 },
    ];
    writeFileSync(join(dir, bundle), writeTarGz(files, mtime));
  }

  for (const note of advanceChannels(options.outRoot, version, options.channel, date.toISOString())) log(`channel ${note}`);
  // The served installer is the newest stable one; every release also keeps its own copy.
  const stablePointer = join(options.outRoot, "channels", "stable.json");
  if (options.channel === "stable" && JSON.parse(readFileSync(stablePointer, "utf8")).version === version) {
    writeFileSync(join(options.outRoot, "install.sh"), install, { mode: 0o755 });
  }
  const size = Object.values(manifestTargets).reduce((sum, entry) => sum + statSync(join(dir, entry.file)).size, 0);
  log(`omp ${version} (${options.channel}) in ${relative(process.cwd(), dir) || "."}: ${targets.size} target(s), ${(size / 1e6).toFixed(1)} MB of archives, ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return dir;
}

function parseTargets(value: string | undefined): ReleaseTarget[] {
  if (value === undefined) return localTargets();
  return value.split(",").map((name) => {
    const target = ReleaseTarget.safeParse(name.trim());
    if (!target.success) throw new Error(`--targets: ${JSON.stringify(name)} is not a target (${ReleaseTarget.options.join(", ")})`);
    return target.data;
  });
}

function parsePrebuilt(values: string[]): Map<ReleaseTarget, string> {
  const prebuilt = new Map<ReleaseTarget, string>();
  for (const value of values) {
    const [name, path] = value.split(/=(.*)/s, 2);
    const target = ReleaseTarget.safeParse(name);
    if (!target.success || !path) throw new Error(`--prebuilt wants <target>=<path> with a target among ${ReleaseTarget.options.join(", ")}; got ${value}`);
    if (!existsSync(path)) throw new Error(`--prebuilt ${value}: no such file`);
    prebuilt.set(target.data, resolve(path));
  }
  return prebuilt;
}

if (import.meta.main) {
  try {
    const { values } = parseArgs({
      options: {
        version: { type: "string" },
        channel: { type: "string", default: "stable" },
        out: { type: "string", default: join(import.meta.dir, "out") },
        "base-url": { type: "string", default: DEFAULT_RELEASE_URL },
        targets: { type: "string" },
        prebuilt: { type: "string", multiple: true, default: [] },
        "no-build": { type: "boolean", default: false },
      },
    });
    const version = ReleaseVersion.safeParse(values.version);
    if (!version.success) throw new Error(`--version wants a semver version such as 1.2.3, got ${JSON.stringify(values.version)}`);
    const channel = UpdateChannel.safeParse(values.channel);
    if (!channel.success) throw new Error(`--channel must be stable or canary, got ${JSON.stringify(values.channel)}`);
    await buildRelease({
      version: version.data,
      channel: channel.data,
      outRoot: resolve(values.out),
      baseUrl: values["base-url"].replace(/\/+$/, ""),
      prebuilt: parsePrebuilt(values.prebuilt),
      build: values["no-build"] ? [] : parseTargets(values.targets),
      key: signingKeyFromEnv(),
    });
  } catch (error) {
    console.error(`release build failed: ${(error as Error).message}`);
    process.exit(1);
  }
}
