import { existsSync, realpathSync, statSync } from "node:fs";
import { join, relative, isAbsolute } from "node:path";
import { partTrusted } from "../trust/content-pins.ts";
import { projectClaudeSettings } from "../trust/pinned-parts.ts";
import { folderTrust } from "../trust/folder-trust.ts";
import { type PluginComponents, readPackageJson, resolveComponents } from "./components.ts";
import { claudeInstalledFile, claudeInstalls, claudeStateFiles } from "./claude-installs.ts";
import { parsePluginId } from "./names.ts";
import { npmLockFile, npmManifestFile, npmModulesDir, pluginsRoot, projectInstalledFile, userInstalledFile } from "./paths.ts";
import type { InstallRecord } from "./state.ts";
import { sessionInstalled, sessionNpmPlugins, withDeclaredNpmPlugins } from "./session-state.ts";

export interface EnabledPlugin {
  /** `name@marketplace`, or the package name of an npm, git, local or linked plugin. */
  id: string;
  /** What its commands are prefixed with: `/<name>:<command>`. */
  name: string;
  marketplace?: string;
  kind: "marketplace" | "package" | "claude";
  scope: "user" | "project";
  version: string;
  root: string;
  /**
   * May it run code (hooks, MCP servers, extensions)? A user install always: installing was the
   * user's act of trust. A project install only in a trusted folder, since a cloned repository
   * could carry its own `.omp/plugins/installed_plugins.json`.
   */
  trusted: boolean;
  components: PluginComponents;
}

function insideCache(path: string): boolean {
  try {
    const rel = relative(realpathSync(join(pluginsRoot(), "cache", "plugins")), realpathSync(path));
    return rel !== "" && !rel.startsWith("..") && !isAbsolute(rel);
  } catch {
    return false;
  }
}

function marketplacePlugins(cwd: string): EnabledPlugin[] {
  const user = sessionInstalled(userInstalledFile());
  const projectFile = projectInstalledFile(cwd);
  const project = existsSync(projectFile) ? sessionInstalled(projectFile) : {};
  const trustedProject = existsSync(projectFile) && partTrusted(cwd, projectFile);
  const found: EnabledPlugin[] = [];
  for (const key of new Set([...Object.keys(project), ...Object.keys(user)])) {
    const id = parsePluginId(key);
    if (!id) continue;
    // An enabled project install shadows the user's; a disabled one does not.
    const projectRecord = project[key]?.find((record) => record.scope === "project" && record.enabled !== false);
    const userRecord = user[key]?.find((record) => record.scope === "user" && record.enabled !== false);
    const record: InstallRecord | undefined = projectRecord ?? userRecord;
    // Only omp's own cache is accepted as an install path: a project file naming any other folder is ignored.
    if (!record || !insideCache(record.installPath)) continue;
    const trusted = record === userRecord || trustedProject;
    found.push({
      id: key,
      name: id.plugin,
      marketplace: id.marketplace,
      kind: "marketplace",
      scope: record.scope,
      version: record.version,
      root: record.installPath,
      trusted,
      // Marketplace plugins give Claude Code's components; extension modules come only from npm, git and linked plugins.
      components: resolveComponents(record.installPath, { allowModules: false }),
    });
  }
  return found;
}

/**
 * Claude Code's own installs, read in place: on unless Claude Code's settings or omp's switch turn
 * them off, and left out where omp has its own install of the same plugin. Code runs when the user's
 * settings enabled it; when the project's settings decided, only in a trusted folder.
 */
function claudePlugins(cwd: string, ompIds: Set<string>): EnabledPlugin[] {
  const found: EnabledPlugin[] = [];
  for (const install of claudeInstalls(cwd)) {
    if (!install.root || !install.enabledInClaude || install.disabledInOmp || ompIds.has(install.id)) continue;
    found.push({
      id: install.id,
      name: install.name,
      marketplace: install.marketplace,
      kind: "claude",
      scope: install.scope,
      version: install.version,
      root: install.root,
      // Enabled by the project's Claude settings: only while they are as trusted (core/trust/content-pins.ts).
      trusted: !install.byProject || projectClaudeSettings(cwd).every((file) => partTrusted(cwd, file)),
      components: resolveComponents(install.root, { allowModules: false, entry: install.entry ?? null }),
    });
  }
  return found;
}

function packagePlugins(): EnabledPlugin[] {
  const found: EnabledPlugin[] = [];
  const locked = sessionNpmPlugins(npmLockFile());
  for (const [name, state] of Object.entries(withDeclaredNpmPlugins(locked))) {
    if (!state.enabled) continue;
    const root = join(npmModulesDir(), name);
    if (!existsSync(root)) continue;
    const short = name.replace(/^@[^/]+\//, "");
    found.push({
      id: name,
      name: short,
      kind: "package",
      scope: "user",
      version: readPackageJson(root)?.version ?? state.version,
      root,
      trusted: true,
      components: resolveComponents(root, { features: state.enabledFeatures }),
    });
  }
  return found;
}

/**
 * Every enabled plugin for a session in `cwd`, with its root and the component paths the loaders
 * (skills, commands, agents, hooks, MCP, extensions) read. Disabled and uninstalled plugins are
 * not here, so they contribute nothing.
 */
export function enabledPlugins(cwd: string): EnabledPlugin[] {
  if (!existsSync(pluginsRoot()) && !existsSync(projectInstalledFile(cwd)) && !existsSync(claudeInstalledFile())) return [];
  // Several loaders ask in one start-up; the answer stands while no state file has changed.
  const project = projectInstalledFile(cwd);
  // The manifest too: a plugin the original omp declares there alone is enabled (withDeclaredNpmPlugins).
  const files = [userInstalledFile(), project, npmLockFile(), npmManifestFile(), ...claudeStateFiles(cwd)];
  const key = [cwd, ...files.map(stamp), (existsSync(project) || existsSync(claudeInstalledFile())) && folderTrust(cwd).trusted].join("\0");
  if (remembered?.key !== key) {
    const ompIds = new Set([...Object.keys(sessionInstalled(userInstalledFile())), ...Object.keys(existsSync(project) ? sessionInstalled(project) : {})]);
    remembered = { key, plugins: [...marketplacePlugins(cwd), ...packagePlugins(), ...claudePlugins(cwd, ompIds)] };
  }
  return remembered.plugins;
}

let remembered: { key: string; plugins: EnabledPlugin[] } | undefined;

function stamp(file: string): string {
  try {
    const stat = statSync(file);
    return `${stat.mtimeMs}:${stat.size}:${stat.ino}`;
  } catch {
    return "-";
  }
}
