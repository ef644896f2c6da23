import { existsSync } from "node:fs";
import type { ExtensionsFactory } from "../agent/agent-extensions.ts";
import { combineExtensions } from "../agent/agent-extensions.ts";
import type { SettingsLayer } from "../config/settings.ts";
import { join, resolve } from "node:path";
import { agentDir, expandHome } from "../paths.ts";
import type { Tool } from "../tools/types.ts";
import { folderTrust, noteSkippedForTrust } from "../trust/folder-trust.ts";
import { lazyClaudeHooks } from "./hooks/lazy.ts";
import { extensionEntries, extensionsIn } from "./ts/discover.ts";
import type { LoadedCommand } from "./ts/load.ts";
import { type AgentDefinition, GENERAL_PURPOSE } from "./agents/builtin.ts";
import { loadAgentDefinitions } from "./agents/discover.ts";
import { agentDirs } from "./agents/task-tool.ts";

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
}

export interface SessionExtensions {
  factory?: ExtensionsFactory;
  /** Tools registered by TypeScript extensions. */
  tools: Tool[];
  /** Slash commands registered by TypeScript extensions. */
  commands: LoadedCommand[];
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
  const result: SessionExtensions = { tools: [], commands: [] };
  // An untrusted folder's .omp/config.yml comes without its hooks already (core/trust/untrusted-settings.ts).
  const hookLayers = options.layers.filter((layer) => layer.path !== undefined && layer.values.hooks !== undefined);
  if (hookLayers.length > 0) {
    const sources = hookLayers.map((layer) => ({ file: layer.path!, block: layer.values.hooks }));
    factories.push(lazyClaudeHooks(sources, { env: options.env, warn: options.warn, permissionMode: options.approvalMode }));
  }

  const user = extensionsIn(join(agentDir(options.env), "extensions"));
  const project = extensionsIn(join(options.cwd, ".omp", "extensions"));
  const explicit = options.extensionPaths.map((path) => extensionEntries(resolve(options.cwd, expandHome(path))));
  let projectAllowed = project.entries.length + project.problems.length > 0;
  if (projectAllowed && !folderTrust(options.cwd, { env: options.env }).trusted) {
    noteSkippedForTrust("extensions in .omp/extensions");
    projectAllowed = false;
  }
  const entries = [...user.entries, ...(projectAllowed ? project.entries : []), ...explicit.flatMap((found) => found.entries)];
  for (const problem of [...user.problems, ...(projectAllowed ? project.problems : []), ...explicit.flatMap((found) => (found.problem ? [found.problem] : []))]) options.warn(problem);
  if (entries.length > 0) {
    const { loadExtensions } = await import("./ts/load.ts");
    const loaded = await loadExtensions([...new Set(entries)], new Set(options.reservedToolNames), options.warn);
    for (const problem of loaded.problems) options.warn(problem);
    result.tools = loaded.tools;
    result.commands = loaded.commands;
    if (loaded.factory) factories.push(loaded.factory);
  }
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
  if (dirs.length === 0) return [GENERAL_PURPOSE];
  const { agents, problems } = loadAgentDefinitions(dirs, env);
  for (const problem of problems) warn(problem);
  // An agent file named general-purpose replaces the built-in one, as in Claude Code.
  return agents.some((agent) => agent.name === GENERAL_PURPOSE.name) ? agents : [GENERAL_PURPOSE, ...agents];
}
