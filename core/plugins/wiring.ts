import { readFileSync } from "node:fs";
import { displayPath } from "../paths.ts";
import { noteSkippedForTrust } from "../trust/folder-trust.ts";
import type { Source } from "../extensions/sources.ts";
import type { EnabledPlugin } from "./enabled.ts";

/**
 * What enabled plugins give the session's loaders (core/extensions): hooks.json blocks with their
 * plugin root (CLAUDE_PLUGIN_ROOT), extension modules, agent folders. Code (hooks, extensions)
 * comes only from trusted plugins: a project-scope install in an untrusted folder gives text only,
 * and that is noted on the untrusted-folder line.
 */
export interface PluginHookSource {
  file: string;
  block: unknown;
  pluginRoot: string;
}

function runsCode(plugin: EnabledPlugin, what: string): boolean {
  if (!plugin.trusted) noteSkippedForTrust(`${what} of project plugin ${plugin.id}`);
  return plugin.trusted;
}

/** Each hooks file read as JSON (the hooks loader validates it when an event first needs it). */
export function pluginHookSources(plugins: readonly EnabledPlugin[], warn: (line: string) => void): PluginHookSource[] {
  const sources: PluginHookSource[] = [];
  for (const plugin of plugins) {
    if (plugin.components.hooks.length === 0 || !runsCode(plugin, "hooks")) continue;
    for (const file of plugin.components.hooks) {
      try {
        const parsed = JSON.parse(readFileSync(file, "utf8")) as { hooks?: unknown };
        sources.push({ file, block: parsed?.hooks ?? {}, pluginRoot: plugin.root });
      } catch (error) {
        warn(`${displayPath(file)} (plugin ${plugin.id}): not readable JSON (${(error as Error).message}); its hooks are ignored`);
      }
    }
  }
  return sources;
}

export function pluginExtensionEntries(plugins: readonly EnabledPlugin[]): string[] {
  return plugins.flatMap((plugin) => (plugin.components.extensions.length > 0 && runsCode(plugin, "extensions") ? plugin.components.extensions : []));
}

/** Agent folders with the name their agents are prefixed with (`<plugin>:<agent>`, as Claude Code names them). */
export function pluginAgentDirs(plugins: readonly EnabledPlugin[]): { namespace: string; dirs: string[] }[] {
  return plugins.filter((plugin) => plugin.components.agents.length > 0).map((plugin) => ({ namespace: plugin.name, dirs: plugin.components.agents }));
}

/**
 * Each plugin as a source of skills and commands (core/extensions/sources.ts). Text needs no trust;
 * `trusted` decides whether its commands' !`cmd` lines may run.
 */
export function pluginSources(plugins: readonly EnabledPlugin[]): Source[] {
  return plugins
    .filter((plugin) => plugin.components.skills.length + plugin.components.commands.length > 0)
    .map((plugin) => ({
      kind: "plugin",
      root: plugin.root,
      trusted: plugin.trusted,
      namespace: plugin.name,
      label: `plugin ${plugin.id}`,
      skillDirs: plugin.components.skills,
      commandDirs: plugin.components.commands,
    }));
}
