import { z } from "zod";
import { UpdateChannel } from "../config/settings-schema.ts";
import { VERSION_PATTERN } from "./semver.ts";

/**
 * What a release publishes, as installer and updater read it. Layout under the base URL:
 *
 *   channels/<channel>.json              ChannelPointer: the version a channel points at
 *   <version>/manifest.json              ReleaseManifest
 *   <version>/SHA256SUMS(.sig)           every file below, and its Ed25519 signature
 *   <version>/omp-<target>               the bare binary
 *   <version>/omp-<version>-<target>.tar.gz           binary, LICENSE, README, completions
 *   <version>/omp-<version>-<target>-offline.tar.gz   the air-gapped bundle
 *   install.sh, <version>/install.sh, <version>/omp.rb
 */

/** Builds the release pipeline knows; `-baseline` runs on x64 CPUs without AVX2. */
export const ReleaseTarget = z.enum([
  "linux-x64",
  "linux-x64-baseline",
  "linux-arm64",
  "linux-x64-musl",
  "linux-arm64-musl",
  "darwin-x64",
  "darwin-arm64",
  "windows-x64",
]);
export type ReleaseTarget = z.infer<typeof ReleaseTarget>;

export const ReleaseVersion = z.string().regex(VERSION_PATTERN, "a semver version such as 1.2.3 or 1.3.0-canary.1");

const FileName = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._+-]*$/, "a plain file name");

const Artifact = z.strictObject({
  file: FileName,
  size: z.number().int().positive(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
});

/** Per target: the archive to download (file, size, sha256) and the binary inside it. */
export const TargetArtifacts = Artifact.extend({ binary: Artifact });
export type TargetArtifacts = z.infer<typeof TargetArtifacts>;

export const ReleaseManifest = z.strictObject({
  format: z.literal(1),
  version: ReleaseVersion,
  channel: UpdateChannel,
  date: z.iso.datetime(),
  targets: z.partialRecord(ReleaseTarget, TargetArtifacts),
});
export type ReleaseManifest = z.infer<typeof ReleaseManifest>;

export const ChannelPointer = z.strictObject({
  channel: UpdateChannel,
  version: ReleaseVersion,
  date: z.iso.datetime(),
});
export type ChannelPointer = z.infer<typeof ChannelPointer>;

export const binaryFileName = (target: ReleaseTarget) => (target.startsWith("windows-") ? `omp-${target}.exe` : `omp-${target}`);
export const archiveFileName = (version: string, target: ReleaseTarget) => `omp-${version}-${target}.tar.gz`;
export const bundleFileName = (version: string, target: ReleaseTarget) => `omp-${version}-${target}-offline.tar.gz`;
/** The binary's name inside the archive, below its single top-level directory. */
export const ARCHIVED_BINARY = "omp";

export const channelPointerPath = (channel: string) => `channels/${channel}.json`;
