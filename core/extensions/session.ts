import { existsSync } from "node:fs";
import type { ExtensionsFactory } from "./agent-extensions.ts";
import { combineExtensions } from "./agent-extensions.ts";
import type { SettingsLayer } from "../config/settings.ts";
import { join, resolve } from "node:path";
import { agentDir, expandHome } from "../paths.ts";
import type { Tool } from "../tools/types.ts";
import { partChanged } from "../trust/content-pins.ts";
import { extensionsDir } from "../trust/pinned-parts.ts";
import { folderTrust, noteSkippedForTrust } from "../trust/folder-trust.ts";
import { claudeSessionSettings } from "./claude-settings/session.ts";
import { lazyClaudeHooks } from "./hooks/lazy.ts";
import { extensionEntries, extensionsIn } from "./ts/discover.ts";
import { type AgentDefinition, GENERAL_PURPOSE } from "./agents/builtin.ts";
import { loadAgentDefinitions } from "./agents/discover.ts";
import { agentDirs } from "./agents/task-tool.ts";
import type { Extensions } from "./extensions.ts";
import { hookSourceKind, recordExtensionReports, recordHooks, recordSkippedExtension, UNTRUSTED_REASON, untrustedProjectHooks } from "./session-catalog.ts";
import type { SourceKind } from "./sources.ts";
import { enabledPlugins } from "../plugins/enabled.ts";
import { pluginAgentDirs, pluginExtensionEntries, pluginHookSources } from "../plugins/wiring.ts";

export interface SessionExtensionsOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** The settings layers as loaded: each may carry a `hooks:` block. */
  layers: readonly SettingsLayer[];
  approvalMode: string;
  /** `-e/--extension` paths, as given (relative to cwd, `~` allowed). */
  extensionPaths: readonly string[];
  /** Tool names taken already (built-in tools): an extension's tool of the same name is refused. */
  reservedToolNames: readonly string[];
  /** Problems and hook failures, one line each. */
  warn: (line: string) => void;
  /**
   * Where the extensions' slash commands join the markdown ones, and where `omp extensions` and
   * `/extensions` find what was loaded or skipped.
   */
  registry: Extensions;
}

export interface SessionExtensions {
  factory?: ExtensionsFactory;
  /** Tools registered by TypeScript extensions. */
  tools: Tool[];
  /** Claude Code settings' `additionalDirectories`: folders the tools may use without asking, like `--add-dir`. */
  additionalDirectories: string[];
}

/**
 * Everything that hooks into this process's agents: Claude-style hooks from the config files and
 * TypeScript extensions. Project code (`.omp/config.yml` hooks, `.omp/extensions/`) runs only in a
 * trusted folder (the settings loader drops an untrusted project's hooks); the user's own files,
 * `--config` files and `-e` paths (given by the user) always do. Nothing is imported when nothing
 * is configured, so a session without any pays for none of it.
 */
export async function sessionExtensions(options: SessionExtensionsOptions): Promise<SessionExtensions> {
  const factories: ExtensionsFactory[] = [];
  const result: SessionExtensions = { tools: [], additionalDirectories: [] };
  // Claude Code's settings.json files: hooks, permission rules, env and directories (claude-settings/).
  const claude = claudeSessionSettings(options.cwd, options.env, options.warn);
  result.additionalDirectories = claude.additionalDirectories;
  options.registry.readDenied = claude.readDenied;
  // An untrusted folder's .omp/config.yml comes without its hooks already (core/config/untrusted-settings.ts).
  const hookLayers = options.layers.filter((layer) => layer.path !== undefined && layer.values.hooks !== undefined);
  // Installed plugins (omp plugin): their hooks.json files and extension modules join the user's.
  const plugins = enabledPlugins(options.cwd);
  const pluginHooks = pluginHookSources(plugins, options.warn);
  const hookSources = [...hookLayers.map((layer) => ({ file: layer.path!, block: layer.values.hooks })), ...claude.hooks, ...pluginHooks];
  if (hookSources.length > 0) {
    factories.push(lazyClaudeHooks(hookSources, { env: options.env, warn: options.warn, permissionMode: options.approvalMode }));
  }
  const registry = options.registry;
  // Hooks parse at their first event; the listing parses them when it is asked for.
  registry.whenListed(() => {
    recordHooks(registry.catalog, hookSources, (source) => claude.kindOf(source.file) ?? hookSourceKind(source, options.layers));
    recordHooks(registry.catalog, claude.untrustedHooks, () => "project", UNTRUSTED_REASON);
    claude.record(registry.catalog);
    if (!folderTrust(options.cwd, { env: options.env }).trusted) recordHooks(registry.catalog, untrustedProjectHooks(options.layers), () => "project", UNTRUSTED_REASON);
    // Rule files need the rule parser (zod), which a run loads only when it has rules.
    (require("../rules/catalog-entries.ts") as typeof import("../rules/catalog-entries.ts")).recordRules(registry.catalog, options.cwd, options.env);
  });

  const user = extensionsIn(join(agentDir(options.env), "extensions"));
  const project = extensionsIn(join(options.cwd, ".omp", "extensions"));
  const explicit = options.extensionPaths.map((path) => extensionEntries(resolve(options.cwd, expandHome(path))));
  let projectAllowed = project.entries.length + project.problems.length > 0;
  if (projectAllowed && !folderTrust(options.cwd, { env: options.env }).trusted) {
    noteSkippedForTrust("extensions in .omp/extensions");
    projectAllowed = false;
  } else if (projectAllowed && partChanged(options.cwd, extensionsDir(options.cwd), options.env)) projectAllowed = false;
  const fromPlugins = pluginExtensionEntries(plugins);
  const entries = [...user.entries, ...(projectAllowed ? project.entries : []), ...explicit.flatMap((found) => found.entries), ...fromPlugins];
  const kinds = new Map<string, SourceKind>([...fromPlugins.map((file) => [file, "plugin"] as const), ...explicit.flatMap((found) => found.entries.map((file) => [file, "cli"] as const)), ...project.entries.map((file) => [file, "project"] as const)]);
  const kindOf = (file: string): SourceKind => kinds.get(file) ?? "user";
  if (!projectAllowed) for (const file of project.entries) recordSkippedExtension(registry.catalog, file, "project", UNTRUSTED_REASON);
  for (const problem of [...user.problems, ...(projectAllowed ? project.problems : []), ...explicit.flatMap((found) => (found.problem ? [found.problem] : []))]) options.warn(problem);
  if (entries.length > 0) {
    const { loadExtensions } = await import("./ts/load.ts");
    const loaded = await loadExtensions([...new Set(entries)], new Set(options.reservedToolNames), options.warn);
    for (const problem of loaded.problems) options.warn(problem);
    recordExtensionReports(registry.catalog, loaded.reports, kindOf);
    registry.codeCommands.push(...loaded.commands);
    result.tools = loaded.tools;
    if (loaded.factory) factories.push(loaded.factory);
  }
  // Permission rules judge last, so that they see the input a hook rewrote.
  if (claude.rules) factories.push(claude.rules);
  const factory = combineExtensions(factories);
  if (factory) result.factory = factory;
  return result;
}

/**
 * The subagents the task tool offers: the built-in general-purpose agent, then agent files (text
 * only, so a project's need no trust).
 */
export function subagentDefinitions(cwd: string, env: NodeJS.ProcessEnv, warn: (line: string) => void): AgentDefinition[] {
  const dirs = agentDirs(cwd, env).filter((dir) => existsSync(dir));
  const plugins = pluginAgentDirs(enabledPlugins(cwd));
  if (dirs.length === 0 && plugins.length === 0) return [GENERAL_PURPOSE];
  const { agents, problems } = loadAgentDefinitions(dirs, env);
  for (const plugin of plugins) {
    const found = loadAgentDefinitions(plugin.dirs, env);
    agents.push(...found.agents.map((agent) => ({ ...agent, name: `${plugin.namespace}:${agent.name}` })));
    problems.push(...found.problems);
  }
  for (const problem of problems) warn(problem);
  // An agent file named general-purpose replaces the built-in one, as in Claude Code.
  return agents.some((agent) => agent.name === GENERAL_PURPOSE.name) ? agents : [GENERAL_PURPOSE, ...agents];
}
