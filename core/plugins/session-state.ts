import type { InstallRecord, NpmPluginState } from "./state.ts";
import { join } from "node:path";
import { readJsonIfPresent } from "../fs/read-json.ts";
import { npmManifestFile, npmModulesDir } from "./paths.ts";

/**
 * The state files as a session reads them at start-up, without zod (kept off the start-up path):
 * records of the wrong shape are skipped one by one, a broken file is no plugins. The CLI reads and
 * writes them through the schemas in state.ts.
 */

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

export function sessionInstalled(file: string): Record<string, InstallRecord[]> {
  const raw = readJsonIfPresent(file);
  if (!isRecord(raw) || !isRecord(raw.plugins)) return {};
  const plugins: Record<string, InstallRecord[]> = {};
  for (const [key, records] of Object.entries(raw.plugins)) {
    if (!Array.isArray(records)) continue;
    plugins[key] = records.filter(
      (record): record is InstallRecord =>
        isRecord(record) && (record.scope === "user" || record.scope === "project") && typeof record.installPath === "string" && typeof record.version === "string",
    );
  }
  return plugins;
}

export function sessionNpmPlugins(file: string): Record<string, NpmPluginState> {
  const raw = readJsonIfPresent(file);
  if (!isRecord(raw) || !isRecord(raw.plugins)) return {};
  const plugins: Record<string, NpmPluginState> = {};
  for (const [name, state] of Object.entries(raw.plugins)) {
    if (!isRecord(state)) continue;
    const features = Array.isArray(state.enabledFeatures) ? state.enabledFeatures.filter((item): item is string => typeof item === "string") : null;
    // The original omp loads an entry without `enabled` as disabled (its loader's `!state.enabled`).
    plugins[name] = { version: typeof state.version === "string" ? state.version : "0.0.0", enabled: state.enabled === true, enabledFeatures: features };
  }
  return plugins;
}

/**
 * The plugins the original omp's `package.json` declares that the lock file has no entry for, as
 * the original treats them: installed, enabled, with the manifest's default features. Only those
 * present in node_modules count, as the original skips the others.
 */
function declaredOnlyNpmPlugins(inLock: ReadonlySet<string>): Record<string, NpmPluginState> {
  const manifest = readJsonIfPresent(npmManifestFile());
  if (!isRecord(manifest) || !isRecord(manifest.dependencies)) return {};
  const plugins: Record<string, NpmPluginState> = {};
  for (const name of Object.keys(manifest.dependencies)) {
    if (inLock.has(name)) continue;
    const pkg = readJsonIfPresent(join(npmModulesDir(), name, "package.json"));
    if (!isRecord(pkg)) continue;
    plugins[name] = { version: typeof pkg.version === "string" ? pkg.version : "0.0.0", enabled: true, enabledFeatures: null };
  }
  return plugins;
}

/** The lock file's npm plugins, then those the original's `package.json` alone declares (see {@link declaredOnlyNpmPlugins}). */
export function withDeclaredNpmPlugins<T extends NpmPluginState>(locked: Record<string, T>): Record<string, T | NpmPluginState> {
  return { ...locked, ...declaredOnlyNpmPlugins(new Set(Object.keys(locked))) };
}
