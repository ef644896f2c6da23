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
 *   --prebuilt <target>=<path>  add a binary built elsewhere (a CI runner of that target); repeatable
 *   --no-build                only the --prebuilt binaries, nothing compiled here
 *
 * This machine compiles its own target; the full matrix runs in release/ci/release.yml. The
 * binaries trust the public half of OMP_RELEASE_KEY, as does the install.sh written here.
 */
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { parseArgs } from "node:util";
import { describeProgram } from "../cli/program.ts";
import { UpdateChannel } from "../core/config/settings-schema.ts";
import { reportedVersion } from "../core/update/swap.ts";
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
import { build } from "../embed/build.ts";
import { advanceChannels } from "./channels.ts";
import { generateCompletions } from "./completions.ts";
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
  buildHere: boolean;
  key: SigningKey;
}

const log = (line: string) => console.error(`release: ${line}`);

function artifactOf(dir: string, file: string): { file: string; size: number; sha256: string } {
  const data = readFileSync(join(dir, file));
  return { file, size: data.length, sha256: sha256Hex(data) };
}

/** The binary for `target`, compiled here or copied from --prebuilt; it must run `--version` right when it can run here. */
async function placeBinary(options: ReleaseOptions, dir: string, target: ReleaseTarget, hostTarget: ReleaseTarget | null): Promise<void> {
  const path = join(dir, binaryFileName(target));
  const prebuilt = options.prebuilt.get(target);
  if (prebuilt) copyFileSync(prebuilt, path);
  else await build({ outfile: path, version: options.version, releaseKey: options.key.publicKey });
  chmodSync(path, 0o755);
  if (target !== hostTarget) return;
  const reported = await reportedVersion(path);
  if (!("version" in reported) || reported.version !== options.version) {
    throw new Error(`${path} reports ${"version" in reported ? reported.version : reported.error}, not omp/${options.version}`);
  }
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

  const hostTarget = currentTarget(process.execPath);
  const targets = new Set<ReleaseTarget>(options.prebuilt.keys());
  if (options.buildHere) {
    if (!hostTarget) throw new Error(`this machine (${process.platform}-${process.arch}) has no release target; pass --prebuilt`);
    targets.add(hostTarget);
  }
  if (targets.size === 0) throw new Error("nothing to release: --no-build without --prebuilt");

  const completions = generateCompletions(describeProgram({ code: 0 }));
  const manifestTargets: Partial<Record<ReleaseTarget, TargetArtifacts>> = {};
  for (const target of [...targets].sort()) {
    log(`${target}: binary`);
    await placeBinary(options, dir, target, hostTarget);
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
      buildHere: !values["no-build"],
      key: signingKeyFromEnv(),
    });
  } catch (error) {
    console.error(`release build failed: ${(error as Error).message}`);
    process.exit(1);
  }
}
