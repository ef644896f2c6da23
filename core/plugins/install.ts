import { mkdirSync, rmSync } from "node:fs";
import { dirname } from "node:path";
import { OmpError } from "../errors/omp-error.ts";
import { resolveComponents, readPluginJson } from "./components.ts";
import { fetchEntry } from "./fetch-source.ts";
import { findMarketplace, loadCatalog, marketplaceRoot } from "./marketplaces.ts";
import { describeWhatRuns, materializeManifest } from "./materialize.ts";
import { type PluginId, pluginIdOf } from "./names.ts";
import { pluginCacheDir, projectInstalledFile, userInstalledFile } from "./paths.ts";
import { type InstallRecord, type Installed, readInstalled, writeState } from "./state.ts";
import { stagingDir, swapInto } from "./staging.ts";

export type Scope = "user" | "project";

export const installedFile = (scope: Scope, cwd: string) => (scope === "user" ? userInstalledFile() : projectInstalledFile(cwd));

export interface InstallResult {
  id: string;
  scope: Scope;
  record: InstallRecord;
  /** The hooks, MCP servers and code it will run: said at install, the moment the user trusts it. */
  runs: string[];
  previousVersion?: string;
}

/** Install paths still named by any state file: a cache dir is deleted only when none refers to it. */
export function stillUsed(path: string, cwd: string): boolean {
  for (const scope of ["user", "project"] as const) {
    for (const records of Object.values(readInstalled(installedFile(scope, cwd)).plugins)) if (records.some((record) => record.installPath === path)) return true;
  }
  return false;
}

/** Installs (or reinstalls, for update) `plugin@marketplace` from the marketplace's current catalog. */
export async function installFromMarketplace(id: PluginId, scope: Scope, cwd: string): Promise<InstallResult> {
  const marketplace = findMarketplace(id.marketplace);
  const catalog = loadCatalog(marketplace);
  const entry = catalog.plugins.find((item) => item.name === id.plugin);
  if (!entry) {
    const skipped = catalog.skipped.find((item) => item.name === id.plugin);
    if (skipped) throw new OmpError(`plugin ${id.plugin} in marketplace ${id.marketplace} cannot be installed: ${skipped.reason}`);
    throw new OmpError(`marketplace ${id.marketplace} has no plugin ${id.plugin}; see \`omp plugin discover ${id.marketplace}\``);
  }
  const staging = stagingDir();
  try {
    const fetched = await fetchEntry(entry, marketplaceRoot(marketplace), catalog.pluginRoot, staging, cwd);
    materializeManifest(fetched.dir, entry);
    const version = entry.version ?? readPluginJson(fetched.dir)?.version ?? fetched.version ?? fetched.sha?.slice(0, 12) ?? "0.0.0";
    const safeVersion = version.replace(/[^\w.+-]/g, "_");
    const dest = pluginCacheDir(id.marketplace, id.plugin, safeVersion);
    mkdirSync(dirname(dest), { recursive: true });
    swapInto(fetched.dir, dest);
    const file = installedFile(scope, cwd);
    const state: Installed = readInstalled(file);
    const key = pluginIdOf(id);
    const previous = state.plugins[key]?.find((record) => record.scope === scope);
    const now = new Date().toISOString();
    const record: InstallRecord = {
      scope,
      installPath: dest,
      version,
      installedAt: previous?.installedAt ?? now,
      lastUpdated: now,
      ...(fetched.sha ? { gitCommitSha: fetched.sha } : {}),
      enabled: previous?.enabled ?? true,
    };
    state.plugins[key] = [...(state.plugins[key] ?? []).filter((item) => item.scope !== scope), record];
    writeState(file, state);
    if (previous && previous.installPath !== dest && !stillUsed(previous.installPath, cwd)) rmSync(previous.installPath, { recursive: true, force: true });
    const components = resolveComponents(dest, { allowModules: false });
    return { id: key, scope, record, runs: describeWhatRuns(components.hooks, components.mcp, []), previousVersion: previous?.version };
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

function findRecord(state: Installed, key: string, scope: Scope | undefined): InstallRecord | undefined {
  return state.plugins[key]?.find((record) => scope === undefined || record.scope === scope);
}

/** The scope a command acts on when none is given: project when the project has it, else user. */
export function scopeOf(key: string, cwd: string, scope: Scope | undefined): Scope {
  if (scope) return scope;
  if (findRecord(readInstalled(installedFile("project", cwd)), key, "project")) return "project";
  return "user";
}

export function uninstallMarketplacePlugin(key: string, scope: Scope, cwd: string): InstallRecord {
  const file = installedFile(scope, cwd);
  const state = readInstalled(file);
  const record = findRecord(state, key, scope);
  if (!record) throw new OmpError(`${key} is not installed at ${scope} scope; see \`omp plugin list\``);
  state.plugins[key] = (state.plugins[key] ?? []).filter((item) => item.scope !== scope);
  if (state.plugins[key]!.length === 0) delete state.plugins[key];
  writeState(file, state);
  if (!stillUsed(record.installPath, cwd)) rmSync(record.installPath, { recursive: true, force: true });
  return record;
}

export function setMarketplacePluginEnabled(key: string, scope: Scope, cwd: string, enabled: boolean): void {
  const file = installedFile(scope, cwd);
  const state = readInstalled(file);
  const record = findRecord(state, key, scope);
  if (!record) throw new OmpError(`${key} is not installed at ${scope} scope; see \`omp plugin list\``);
  record.enabled = enabled;
  writeState(file, state);
}
