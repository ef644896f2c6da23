import type { InstallRecord, NpmPluginState } from "./state.ts";
import { readJsonIfPresent } from "../fs/read-json.ts";

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
    if (!isRecord(state) || typeof state.enabled !== "boolean") continue;
    const features = Array.isArray(state.enabledFeatures) ? state.enabledFeatures.filter((item): item is string => typeof item === "string") : null;
    plugins[name] = { version: typeof state.version === "string" ? state.version : "0.0.0", enabled: state.enabled, enabledFeatures: features };
  }
  return plugins;
}
