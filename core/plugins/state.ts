import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { dirname } from "node:path";
import { z } from "zod";
import { writeFileAtomic } from "../fs/atomic-write.ts";
import { withFileLock } from "../fs/file-lock.ts";
import { ensurePrivateDir } from "../paths.ts";
import { describeError } from "../errors/omp-error.ts";
import { marketplacesFile, npmLockFile, pluginsLockFile, pluginsRoot } from "./paths.ts";
import { cleanStaging } from "./staging.ts";
import { describeZodError } from "../errors/zod-issues.ts";

/** The state files, in the original omp's shapes (Claude Code's for installed_plugins.json). */
export const MarketplaceRecordSchema = z.object({
  name: z.string(),
  sourceType: z.enum(["github", "git", "url", "local", "archive"]),
  sourceUri: z.string(),
  /** For git, url and archive sources: in the cached copy; a local folder is read in place. */
  catalogPath: z.string(),
  addedAt: z.string(),
  updatedAt: z.string(),
});
export type MarketplaceRecord = z.infer<typeof MarketplaceRecordSchema>;
export const MarketplacesSchema = z.object({ version: z.literal(1), marketplaces: z.array(MarketplaceRecordSchema) });
export type Marketplaces = z.infer<typeof MarketplacesSchema>;

export const InstallRecordSchema = z.object({
  scope: z.enum(["user", "project"]),
  installPath: z.string(),
  version: z.string(),
  installedAt: z.string(),
  lastUpdated: z.string(),
  gitCommitSha: z.string().optional(),
  enabled: z.boolean().optional(),
});
export type InstallRecord = z.infer<typeof InstallRecordSchema>;
export const InstalledSchema = z.object({ version: z.literal(2), plugins: z.record(z.string(), z.array(InstallRecordSchema)) });
export type Installed = z.infer<typeof InstalledSchema>;

export const NpmPluginStateSchema = z.object({
  version: z.string(),
  /** null: the manifest's default features. */
  enabledFeatures: z.array(z.string()).nullable(),
  /** Missing in some of the original omp's entries: its loader takes that as disabled. */
  enabled: z.boolean().default(false),
  /** Where it came from, so `update` can fetch it again: an npm spec, a git URL, a folder, an archive. */
  source: z.string().optional(),
  kind: z.enum(["npm", "git", "local", "link", "archive"]).optional(),
  /** Dependencies from outside the registry (file:, tarball, git) and what pins each. */
  pinned: z.record(z.string(), z.string()).optional(),
});
export type NpmPluginState = z.infer<typeof NpmPluginStateSchema>;
export const NpmLockSchema = z.object({
  plugins: z.record(z.string(), NpmPluginStateSchema),
  /** The original omp's older lock files have no `settings`. */
  settings: z.record(z.string(), z.record(z.string(), z.unknown())).default({}),
});
export type NpmLock = z.infer<typeof NpmLockSchema>;

/** A missing or unreadable state file is the empty state; a broken one is reported, never fatal to a session. */
export function readState<T>(file: string, schema: z.ZodType<T>, empty: () => T, warn?: (message: string) => void): T {
  if (!existsSync(file)) return empty();
  try {
    const parsed = schema.safeParse(JSON.parse(readFileSync(file, "utf8")));
    if (parsed.success) return parsed.data;
    warn?.(`${file} has an unexpected shape (${describeZodError(parsed.error, "")}); treating it as empty`);
  } catch (error) {
    warn?.(`${file} could not be read (${describeError(error)}); treating it as empty`);
  }
  return empty();
}

export function writeState(file: string, value: unknown): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  writeFileAtomic(file, `${JSON.stringify(value, null, 2)}\n`);
}

export const emptyMarketplaces = (): Marketplaces => ({ version: 1, marketplaces: [] });
export const emptyInstalled = (): Installed => ({ version: 2, plugins: {} });
export const emptyNpmLock = (): NpmLock => ({ plugins: {}, settings: {} });

export const readMarketplaces = () => readState(marketplacesFile(), MarketplacesSchema, emptyMarketplaces);
export const readInstalled = (file: string, warn?: (m: string) => void) => readState(file, InstalledSchema, emptyInstalled, warn);
export const readNpmLock = (warn?: (m: string) => void) => readState(npmLockFile(), NpmLockSchema, emptyNpmLock, warn);

/**
 * Every command that changes plugin state runs inside this: one cross-process lock, so two `omp
 * plugin` commands never interleave their read-modify-writes, and first the leftovers of a run
 * that was killed halfway are removed (the state files still point at the previous, whole install).
 */
export async function withPluginsLock<T>(body: () => Promise<T>): Promise<T> {
  ensurePrivateDir(pluginsRoot());
  return withFileLock(pluginsLockFile(), { waitMs: 120_000, what: "another omp plugin command" }, async () => {
    cleanStaging();
    return body();
  });
}
