import { join } from "node:path";
import { configRoot } from "../paths.ts";
import { projectRoot } from "../fs/project-root.ts";

/**
 * Where the plugin manager keeps its files, as the original omp and Claude Code lay them out, so a
 * user moving between them finds the same names: `~/.omp/plugins/` for installs and caches,
 * `~/.omp/marketplaces.json` for the catalogs added.
 */
export const pluginsRoot = () => join(configRoot(), "plugins");
export const marketplacesFile = () => join(configRoot(), "marketplaces.json");
export const userInstalledFile = () => join(pluginsRoot(), "installed_plugins.json");
export const npmLockFile = () => join(pluginsRoot(), "omp-plugins.lock.json");
export const npmModulesDir = () => join(pluginsRoot(), "node_modules");
/** The original omp's `{name: "omp-plugins", dependencies}`: what its `omp plugin install` put in node_modules. */
export const npmManifestFile = () => join(pluginsRoot(), "package.json");
export const marketplaceCacheDir = (name: string) => join(pluginsRoot(), "cache", "marketplaces", name);
export const pluginCacheDir = (marketplace: string, plugin: string, version: string) =>
  join(pluginsRoot(), "cache", "plugins", `${marketplace}___${plugin}___${version}`);
/** omp's switch for the plugins Claude Code installed (~/.claude is only read, never written). */
export const claudeOverridesFile = () => join(pluginsRoot(), "claude_plugins.json");
/** Half-built installs live here until renamed into place; what a killed run left is removed by the next. */
export const stagingRoot = () => join(pluginsRoot(), "cache", ".staging");
/** The one lock every state-changing `omp plugin` command holds. */
export const pluginsLockFile = () => join(pluginsRoot(), ".state.lock");

/** The project whose `.omp/plugins/` holds project-scope installs: the repository root, else cwd. */
export const projectInstalledFile = (cwd: string) => join(projectRoot(cwd), ".omp", "plugins", "installed_plugins.json");
