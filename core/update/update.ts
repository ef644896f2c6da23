import { accessSync, constants, mkdirSync, realpathSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import type { UpdateChannel } from "../config/settings-schema.ts";
import { OmpError } from "../errors/omp-error.ts";
import { DEFAULT_FETCH_POLICY, type FetchPolicy, downloadFile } from "./http.ts";
import { detectInstallOwner } from "./install-owner.ts";
import { withInstallLock } from "./install-lock.ts";
import { stageFromLocal } from "./local-release.ts";
import { pruneAfterUpdate } from "./prune-natives.ts";
import { ARCHIVED_BINARY, type ReleaseTarget } from "./release-manifest.ts";
import { fetchChannelVersion, fetchRelease, targetArtifacts } from "./remote-release.ts";
import { compareVersions, isVersion } from "./semver.ts";
import { sha256Hex } from "./sha256sums.ts";
import { reportedVersion, stagingName, sweepLeftovers, swapInBinary } from "./swap.ts";
import { writeStaged } from "./staging-errors.ts";
import { findEntry, readTarGz } from "./tarball.ts";
import { EXIT_MANAGED_INSTALL, EXIT_USAGE } from "../errors/exit-codes.ts";

export interface UpdateContext {
  /** The installed binary as invoked; symlinks are resolved here. */
  executable: string;
  currentVersion: string;
  releaseTarget: ReleaseTarget;
  baseUrl: string;
  /** The release public key this binary trusts (base64 SPKI). */
  key: string;
  log: (line: string) => void;
  policy?: FetchPolicy;
  /** How long to wait for a concurrent update of the same binary. */
  lockWaitMs?: number;
}

export interface CheckResult {
  current: string;
  latest: string;
  channel: UpdateChannel;
  newer: boolean;
}

export type UpdateOutcome = { kind: "up-to-date"; version: string; note?: string } | { kind: "updated"; from: string | null; to: string; target: string; pruned: string[] };

export interface UpdateRequest {
  channel: UpdateChannel;
  version?: string;
  from?: string;
  force: boolean;
}

function requireVersion(version: string): string {
  if (!isVersion(version)) throw new OmpError(`${JSON.stringify(version)} is not a version (expected something like 1.2.3 or 1.3.0-canary.1)`, { exitCode: EXIT_USAGE });
  return version;
}

export async function checkForUpdate(ctx: UpdateContext, channel: UpdateChannel, version?: string): Promise<CheckResult> {
  const latest = version ? requireVersion(version) : await fetchChannelVersion(ctx.baseUrl, channel, ctx.policy);
  return { current: ctx.currentVersion, latest, channel, newer: compareVersions(latest, ctx.currentVersion) > 0 };
}

/**
 * Refuses before any download: a package manager's copy (its own command must update it), and a
 * directory this user cannot write (the swap needs to create files beside the binary).
 */
function resolveUpdatableTarget(executable: string): string {
  const target = realpathSync(executable);
  const owner = detectInstallOwner(executable === target ? [target] : [executable, target]);
  if (owner) {
    throw new OmpError(`${executable} is managed by ${owner.manager}; omp update leaves it alone. Update it with: ${owner.command}`, {
      exitCode: EXIT_MANAGED_INSTALL,
    });
  }
  try {
    accessSync(dirname(target), constants.W_OK);
  } catch {
    throw new OmpError(
      `cannot write ${dirname(target)}, where ${target} lives: run omp update as the user who installed it, ` +
        "or install a per-user copy with install.sh (default ~/.local/bin)",
    );
  }
  return target;
}

/** How `wanted` relates to `installed`; a downgrade without --force is refused here. */
function compareToInstalled(wanted: string, installed: string, force: boolean): "same" | "newer" | "older" {
  const order = compareVersions(wanted, installed);
  if (order < 0 && !force) {
    throw new OmpError(`omp ${wanted} is older than the installed ${installed}; add --force to downgrade`, { exitCode: EXIT_USAGE });
  }
  return order === 0 ? "same" : order > 0 ? "newer" : "older";
}

async function installedVersion(target: string): Promise<string | null> {
  const result = await reportedVersion(target);
  return "version" in result ? result.version : null;
}

async function stageRemote(ctx: UpdateContext, version: string, workDir: string, staged: string): Promise<void> {
  const release = await fetchRelease(ctx.baseUrl, version, ctx.key, ctx.policy);
  const artifacts = targetArtifacts(release, ctx.releaseTarget);
  const url = `${release.dir}/${artifacts.file}`;
  ctx.log(`downloading ${artifacts.file} (${(artifacts.size / 1e6).toFixed(1)} MB) from ${release.dir}`);
  const archive = join(workDir, artifacts.file);
  const got = await downloadFile(url, archive, artifacts.file, { maxBytes: artifacts.size, expectedSize: artifacts.size }, ctx.policy ?? DEFAULT_FETCH_POLICY);
  release.sums.expect(artifacts.file, got.sha256, `the downloaded ${artifacts.file}`);
  const binary = findEntry((await readTarGz(archive, artifacts.file, [ARCHIVED_BINARY])).files, ARCHIVED_BINARY);
  if (!binary) throw new OmpError(`${artifacts.file} holds no ${ARCHIVED_BINARY} binary`);
  release.sums.expect(artifacts.binary.file, sha256Hex(binary), `the omp binary in ${artifacts.file}`);
  writeStaged(staged, binary);
  rmSync(archive, { force: true });
}

/**
 * `omp update`: resolve the wanted version, verify everything against the signed SHA256SUMS, then
 * swap the binary under the update lock. Throws OmpError with the reason; the installed omp is
 * untouched unless the outcome is "updated".
 */
export async function runUpdate(ctx: UpdateContext, request: UpdateRequest): Promise<UpdateOutcome> {
  const target = resolveUpdatableTarget(ctx.executable);
  let wanted: string | null = null;
  if (request.version) {
    wanted = requireVersion(request.version);
    if (compareToInstalled(wanted, ctx.currentVersion, request.force) === "same" && !request.force) return { kind: "up-to-date", version: wanted };
  } else if (!request.from) {
    wanted = await fetchChannelVersion(ctx.baseUrl, request.channel, ctx.policy);
    const order = compareVersions(wanted, ctx.currentVersion);
    // A channel behind this omp (say, back from canary to stable) is not a reason to downgrade.
    if (order < 0 && !request.force) {
      return { kind: "up-to-date", version: ctx.currentVersion, note: `${request.channel} is at ${wanted}; --version ${wanted} --force goes back to it` };
    }
    if (order === 0 && !request.force) return { kind: "up-to-date", version: wanted };
  }

  const onWait = (pid: number) => ctx.log(`waiting for another omp update (pid ${pid}) to finish`);
  return withInstallLock(target, { waitMs: ctx.lockWaitMs ?? 10 * 60_000, onWait }, async () => {
    for (const name of sweepLeftovers(target)) ctx.log(`removed ${name}, left by an interrupted update or install`);
    // Another update may have replaced the binary while this one waited for the lock.
    const before = await installedVersion(target);
    if (wanted && before === wanted && !request.force) {
      return { kind: "up-to-date", version: wanted, note: before === ctx.currentVersion ? undefined : "installed by another omp update meanwhile" } as const;
    }

    const workDir = stagingName(target, "dir");
    const staged = stagingName(target, "new");
    mkdirSync(workDir, { mode: 0o700 });
    try {
      if (request.from) {
        await stageFromLocal(request.from, ctx.releaseTarget, ctx.key, workDir, staged, ctx.policy);
        const reported = await reportedVersion(staged);
        if ("error" in reported) throw new OmpError(`the omp in ${request.from} does not run here (${reported.error}); nothing was changed`);
        wanted = reported.version;
        if (before && compareToInstalled(wanted, before, request.force) === "same" && !request.force) {
          return { kind: "up-to-date", version: wanted } as const;
        }
      } else {
        await stageRemote(ctx, wanted!, workDir, staged);
      }
      ctx.log(`verified omp ${wanted} (Ed25519 signature and sha256)`);
      await swapInBinary(target, staged, wanted!);
    } finally {
      rmSync(workDir, { recursive: true, force: true });
      rmSync(staged, { force: true });
    }
    return { kind: "updated", from: before, to: wanted!, target, pruned: pruneAfterUpdate(wanted!) } as const;
  });
}
