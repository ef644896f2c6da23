import { existsSync } from "node:fs";
import type { ExtensionsFactory } from "../agent/agent-extensions.ts";
import { combineExtensions } from "../agent/agent-extensions.ts";
import type { SettingsLayer } from "../config/settings.ts";
import { folderTrust, noteSkippedForTrust } from "../trust/folder-trust.ts";
import { type AgentDefinition, GENERAL_PURPOSE } from "./agents/builtin.ts";
import { agentDirs } from "./agents/task-tool.ts";

export interface SessionExtensionsOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** The settings layers as loaded: each may carry a `hooks:` block. */
  layers: readonly SettingsLayer[];
  approvalMode: string;
  /** Problems and hook failures, one line each. */
  warn: (line: string) => void;
}

/**
 * Everything that hooks into this process's agents: Claude-style hooks from the config files. A
 * project's `.omp/config.yml` hooks run only in a trusted folder; the user's own files and
 * `--config` files (given by the user) always do. Nothing is loaded when nothing is configured,
 * so a session without hooks pays for none of this.
 */
export async function sessionExtensions(options: SessionExtensionsOptions): Promise<ExtensionsFactory | undefined> {
  const factories: ExtensionsFactory[] = [];
  const hookLayers = options.layers.filter((layer) => layer.path !== undefined && layer.values.hooks !== undefined);
  const trusted = hookLayers.filter((layer) => {
    if (layer.kind !== "project" || folderTrust(options.cwd, { env: options.env }).trusted) return true;
    noteSkippedForTrust("hooks in .omp/config.yml");
    return false;
  });
  if (trusted.length > 0) {
    const [{ loadHooks }, { claudeHooks }] = await Promise.all([import("./hooks/load.ts"), import("./hooks/runner.ts")]);
    const { hooks, problems } = loadHooks(trusted.map((layer) => ({ file: layer.path!, block: layer.values.hooks })));
    for (const problem of problems) options.warn(problem);
    if (hooks.length > 0) factories.push(claudeHooks({ hooks, env: options.env, warn: options.warn, permissionMode: options.approvalMode }));
  }
  return combineExtensions(factories);
}

/**
 * The subagents the task tool offers: the built-in general-purpose agent, then agent files (text
 * only, so a project's need no trust). Their parser is loaded only when an agent folder exists.
 */
export async function subagentDefinitions(cwd: string, env: NodeJS.ProcessEnv, warn: (line: string) => void): Promise<AgentDefinition[]> {
  const dirs = agentDirs(cwd, env).filter((dir) => existsSync(dir));
  if (dirs.length === 0) return [GENERAL_PURPOSE];
  const { loadAgentDefinitions } = await import("./agents/definitions.ts");
  const { agents, problems } = loadAgentDefinitions(dirs);
  for (const problem of problems) warn(problem);
  // An agent file named general-purpose replaces the built-in one, as in Claude Code.
  return agents.some((agent) => agent.name === GENERAL_PURPOSE.name) ? agents : [GENERAL_PURPOSE, ...agents];
}
