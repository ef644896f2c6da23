import type { z } from "zod";
import { OmpError } from "../errors/omp-error.ts";
import type { UpdateChannel } from "../config/settings-schema.ts";
import { DEFAULT_FETCH_POLICY, type FetchPolicy, HttpNotFound, fetchBytes } from "./http.ts";
import { ChannelPointer, ReleaseManifest, type ReleaseTarget, type TargetArtifacts, channelPointerPath } from "./release-manifest.ts";
import { sha256Hex } from "./sha256sums.ts";
import { VerifiedSums } from "./verified-sums.ts";
import { EXIT_USAGE } from "../errors/exit-codes.ts";
import { describeZodError } from "../errors/zod-issues.ts";

/**
 * A release server: plain files under a base URL (the default, a mirror in OMP_UPDATE_URL, or a
 * directory served on an intranet). No API, no rate limits; everything but the channel pointer is
 * verified against the signed SHA256SUMS.
 */

export const DEFAULT_RELEASE_URL = "https://omp.sh/releases";

const SMALL_FILE = 1024 * 1024;

export function releaseBaseUrl(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.OMP_UPDATE_URL || DEFAULT_RELEASE_URL;
  try {
    const url = new URL(base);
    if (url.protocol !== "https:" && url.protocol !== "http:") throw new Error(`unsupported protocol ${url.protocol}`);
  } catch (error) {
    throw new OmpError(`OMP_UPDATE_URL is not a usable http(s) URL (${JSON.stringify(base)}): ${(error as Error).message}`, { exitCode: EXIT_USAGE });
  }
  return base.replace(/\/+$/, "");
}

function parseJson<T>(bytes: Uint8Array, schema: z.ZodType<T>, what: string): T {
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder().decode(bytes));
  } catch (error) {
    throw new OmpError(`${what} is not JSON: ${(error as Error).message}`);
  }
  const result = schema.safeParse(value);
  if (!result.success) {
    throw new OmpError(`${what} is not a valid release file: ${describeZodError(result.error, "(root)", { all: true })}`);
  }
  return result.data;
}

/** The version a channel points at. */
export async function fetchChannelVersion(base: string, channel: UpdateChannel, policy: FetchPolicy = DEFAULT_FETCH_POLICY): Promise<string> {
  const url = `${base}/${channelPointerPath(channel)}`;
  const pointer = parseJson(await fetchBytes(url, `the ${channel} channel pointer`, SMALL_FILE, policy), ChannelPointer, `the ${channel} channel pointer (${url})`);
  if (pointer.channel !== channel) throw new OmpError(`${url} describes the ${pointer.channel} channel, not ${channel}`);
  return pointer.version;
}

export interface RemoteRelease {
  version: string;
  dir: string;
  sums: VerifiedSums;
  manifest: ReleaseManifest;
}

/** A version's signed SHA256SUMS and its manifest, verified against each other. */
export async function fetchRelease(base: string, version: string, key: string, policy: FetchPolicy = DEFAULT_FETCH_POLICY): Promise<RemoteRelease> {
  const dir = `${base}/${version}`;
  let sumsText: Uint8Array;
  try {
    sumsText = await fetchBytes(`${dir}/SHA256SUMS`, `SHA256SUMS of omp ${version}`, SMALL_FILE, policy);
  } catch (error) {
    if (error instanceof HttpNotFound) {
      throw new OmpError(`omp ${version} is not published at ${base} (no ${dir}/SHA256SUMS)`);
    }
    throw error;
  }
  const signature = await fetchBytes(`${dir}/SHA256SUMS.sig`, `the signature of SHA256SUMS of omp ${version}`, 4096, policy);
  const sums = VerifiedSums.verify(sumsText, signature, key, dir);
  const manifestBytes = await fetchBytes(`${dir}/manifest.json`, `manifest.json of omp ${version}`, SMALL_FILE, policy);
  sums.expect("manifest.json", sha256Hex(manifestBytes), `manifest.json of omp ${version}`);
  const manifest = parseJson(manifestBytes, ReleaseManifest, `manifest.json of omp ${version}`);
  if (manifest.version !== version) throw new OmpError(`${dir}/manifest.json describes omp ${manifest.version}, not ${version}`);
  return { version, dir, sums, manifest };
}

/** This target's files in a release, cross-checked with SHA256SUMS. */
export function targetArtifacts(release: RemoteRelease, target: ReleaseTarget): TargetArtifacts {
  const artifacts = release.manifest.targets[target];
  if (!artifacts) {
    const available = Object.keys(release.manifest.targets).join(", ") || "none";
    throw new OmpError(`omp ${release.version} has no build for ${target} (available: ${available})`);
  }
  release.sums.expect(artifacts.file, artifacts.sha256, `the manifest's entry for ${artifacts.file}`);
  release.sums.expect(artifacts.binary.file, artifacts.binary.sha256, `the manifest's entry for ${artifacts.binary.file}`);
  return artifacts;
}
