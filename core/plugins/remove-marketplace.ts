import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { readJsonIfPresent } from "../fs/read-json.ts";
import { installedFile, stillUsed } from "./install.ts";
import { findMarketplace, removeMarketplace } from "./marketplaces.ts";
import { parsePluginId } from "./names.ts";
import { projectRoot } from "../fs/project-root.ts";
import { type MarketplaceRecord, readInstalled, writeState } from "./state.ts";
import { plural } from "../plural.ts";

export interface MarketplaceRemoval {
  record: MarketplaceRecord;
  /** User-scope installs from it, now uninstalled. */
  uninstalled: { id: string; version: string }[];
  /**
   * This project's settings that still name plugins from it: they belong to the project (often
   * committed for a team), so they are reported, never edited by a user-level command.
   */
  projectEnabled: { id: string; file: string }[];
}

const fromMarketplace = (id: string, name: string) => parsePluginId(id)?.marketplace === name;

function projectMentions(name: string, cwd: string): { id: string; file: string }[] {
  const found: { id: string; file: string }[] = [];
  const file = installedFile("project", cwd);
  if (existsSync(file)) {
    for (const [id, records] of Object.entries(readInstalled(file).plugins)) {
      if (fromMarketplace(id, name) && records.some((record) => record.enabled !== false)) found.push({ id, file });
    }
  }
  // Claude Code's project settings enable plugins by id, too.
  for (const settings of [join(projectRoot(cwd), ".claude", "settings.json"), join(projectRoot(cwd), ".claude", "settings.local.json")]) {
    const enabled = (readJsonIfPresent(settings) as { enabledPlugins?: unknown } | undefined)?.enabledPlugins;
    if (!enabled || typeof enabled !== "object") continue;
    for (const [id, on] of Object.entries(enabled)) if (on === true && fromMarketplace(id, name)) found.push({ id, file: settings });
  }
  return found;
}

/**
 * `marketplace remove`, as Claude Code does it: the plugins the user installed from it are
 * uninstalled with it. The user's install records go first, then the marketplace, then the cached
 * folders: a run killed in between leaves a state that loads and that the same command finishes.
 */
export function removeMarketplaceWithPlugins(name: string, cwd: string): MarketplaceRemoval {
  findMarketplace(name);
  const file = installedFile("user", cwd);
  const state = readInstalled(file);
  const uninstalled: MarketplaceRemoval["uninstalled"] = [];
  const paths: string[] = [];
  for (const [id, records] of Object.entries(state.plugins)) {
    if (!fromMarketplace(id, name)) continue;
    for (const record of records) {
      uninstalled.push({ id, version: record.version });
      paths.push(record.installPath);
    }
    delete state.plugins[id];
  }
  if (uninstalled.length > 0) writeState(file, state);
  const record = removeMarketplace(name);
  for (const path of paths) if (!stillUsed(path, cwd)) rmSync(path, { recursive: true, force: true });
  return { record, uninstalled, projectEnabled: projectMentions(name, cwd) };
}

/** The summary both the CLI and /plugin print. */
export function describeRemoval(removal: MarketplaceRemoval, show: (path: string) => string): string[] {
  const { record, uninstalled, projectEnabled } = removal;
  const plugins = uninstalled.map((item) => `${item.id} ${item.version}`).join(", ");
  const lines = [
    uninstalled.length === 0
      ? `Removed marketplace ${record.name}; no plugins were installed from it.`
      : `Removed marketplace ${record.name} and uninstalled its ${plural(uninstalled.length, "plugin")}: ${plugins}.`,
  ];
  for (const item of projectEnabled) {
    const how = item.file.endsWith("installed_plugins.json") ? ` (\`omp plugin uninstall ${item.id} --scope project\` removes it)` : "";
    lines.push(`  still enabled by this project: ${item.id} in ${show(item.file)}${how}`);
  }
  return lines;
}
