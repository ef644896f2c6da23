import { readFileSync } from "node:fs";
import { join } from "node:path";
import { displayPath } from "../paths.ts";
import { noteSkippedForTrust } from "../trust/folder-trust.ts";
import { type PluginComponents, readPluginJson } from "./components.ts";
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

/**
 * hooks or mcpServers given inline in plugin.json. omp's own installs have them written out to files
 * at install (materialize.ts); Claude Code's installs are read in place, so they are taken from here.
 */
function inline(plugin: EnabledPlugin, key: "hooks" | "mcpServers"): Record<string, unknown> | null {
  const value = readPluginJson(plugin.root)?.[key];
  return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

/** Each hooks file read as JSON, and inline hooks (the hooks loader validates them when an event first needs them). */
export function pluginHookSources(plugins: readonly EnabledPlugin[], warn: (line: string) => void): PluginHookSource[] {
  const sources: PluginHookSource[] = [];
  for (const plugin of plugins) {
    const given = inline(plugin, "hooks");
    if ((plugin.components.hooks.length === 0 && !given) || !runsCode(plugin, "hooks")) continue;
    if (given) sources.push({ file: join(plugin.root, ".claude-plugin", "plugin.json"), block: "hooks" in given ? given.hooks : given, pluginRoot: plugin.root });
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

/**
 * The manifest's extension, tool and hook modules (of the features in effect) all go to the one TS
 * extension loader: a hook module registers handlers with `on`, a tool module returns its tools.
 */
export function codeModules(components: PluginComponents): string[] {
  return [...new Set([...components.extensions, ...components.tools, ...components.hookModules])];
}

export function pluginExtensionEntries(plugins: readonly EnabledPlugin[]): string[] {
  return plugins.flatMap((plugin) => {
    const modules = codeModules(plugin.components);
    return modules.length > 0 && runsCode(plugin, "extensions, tools and hooks") ? modules : [];
  });
}

/** Agent folders with the name their agents are prefixed with (`<plugin>:<agent>`, as Claude Code names them). */
export function pluginAgentDirs(plugins: readonly EnabledPlugin[]): { namespace: string; dirs: string[] }[] {
  return plugins.filter((plugin) => plugin.components.agents.length > 0).map((plugin) => ({ namespace: plugin.name, dirs: plugin.components.agents }));
}

/** `${CLAUDE_PLUGIN_ROOT}` in every string of a server entry, as Claude Code substitutes it. */
function withPluginRoot(value: unknown, root: string): unknown {
  if (typeof value === "string") return value.replaceAll("${CLAUDE_PLUGIN_ROOT}", root);
  if (Array.isArray(value)) return value.map((item) => withPluginRoot(item, root));
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, withPluginRoot(item, root)]));
  return value;
}

/** A batch of MCP server entries from one place beyond the config files: a plugin, or an ACP client. */
export interface PluginServers {
  /** The plugin, for messages. */
  source: string;
  servers: Record<string, unknown>;
  /** Installed by the project (its `.omp/plugins`, its Claude settings): its servers run sandboxed. */
  fromProject?: boolean;
}

/**
 * The MCP servers of trusted plugins' `.mcp.json` files (wrapped or flat shape) and inline ones,
 * each stdio server also given CLAUDE_PLUGIN_ROOT in its environment. Read as JSON only: the MCP
 * loader validates.
 */
export function pluginMcpServers(plugins: readonly EnabledPlugin[], warn: (line: string) => void): PluginServers[] {
  const found: PluginServers[] = [];
  for (const plugin of plugins) {
    const given = inline(plugin, "mcpServers");
    if ((plugin.components.mcp.length === 0 && !given) || !runsCode(plugin, "MCP servers")) continue;
    const documents: Record<string, unknown>[] = given ? [given] : [];
    for (const file of plugin.components.mcp) {
      try {
        documents.push(JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>);
      } catch (error) {
        warn(`${displayPath(file)} (plugin ${plugin.id}): not readable JSON (${(error as Error).message}); its MCP servers are ignored`);
      }
    }
    for (const document of documents) {
      const servers = (document?.mcpServers ?? document ?? {}) as Record<string, unknown>;
      const entries = Object.entries(servers).filter(([name, raw]) => name !== "$schema" && raw && typeof raw === "object");
      found.push({
        source: `plugin ${plugin.id}`,
        fromProject: plugin.scope === "project",
        servers: Object.fromEntries(
          entries.map(([name, raw]) => {
            const entry = withPluginRoot(raw, plugin.root) as Record<string, unknown>;
            if (typeof entry.command === "string") entry.env = { ...(entry.env as Record<string, string> | undefined), CLAUDE_PLUGIN_ROOT: plugin.root };
            return [name, entry];
          }),
        ),
      });
    }
  }
  return found;
}
