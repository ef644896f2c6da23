import { existsSync } from "node:fs";
import { OmpError } from "../errors/omp-error.ts";
import { enabledPlugins } from "../plugins/enabled.ts";
import { mcpFiles } from "./config-paths.ts";
import { type PluginServers, pluginMcpServers } from "../plugins/wiring.ts";
import { LazyMcpSource } from "./lazy-source.ts";
import type { McpLimits } from "./limits.ts";
import type { ServerSandbox } from "../sandbox/servers.ts";
import { EXIT_USAGE } from "../errors/exit-codes.ts";

export interface ConfiguredMcpOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** `--mcp-config` files: each must exist. */
  flagFiles?: readonly string[];
  /** Headless runs wait for servers whose tool list is not cached; the interactive mode does not. */
  waitForUncached: boolean;
  /** Start the servers only when asked (the interactive mode, once its first frame is up). */
  deferStart?: boolean;
  /** Servers from elsewhere (an ACP client's session/new), after the plugins' ones. */
  extraServers?: readonly PluginServers[];
  /** One line per failing server or config problem. */
  warn: (line: string) => void;
  /** `mcp.*` settings. */
  limits?: McpLimits;
  /** Where the servers the project configured run; undefined: the sandbox is off. */
  sandbox?: ServerSandbox;
}

/**
 * The MCP servers of the config files and installed plugins that apply to `cwd`, or undefined
 * when none is configured: then neither the SDK nor the config loader is ever loaded.
 */
export function configuredMcp(options: ConfiguredMcpOptions): LazyMcpSource | undefined {
  const { cwd, env, flagFiles = [], warn } = options;
  const files = mcpFiles(cwd, flagFiles, env);
  const missing = files.find((file) => file.kind === "flag" && !existsSync(file.path));
  if (missing) throw new OmpError(`--mcp-config ${missing.path}: file not found`, { exitCode: EXIT_USAGE });
  // Installed plugins' .mcp.json servers (omp plugin) join the configured ones.
  const plugins = [...pluginMcpServers(enabledPlugins(cwd), warn), ...(options.extraServers ?? [])];
  if (files.length === 0 && plugins.length === 0) return undefined;
  return new LazyMcpSource({ cwd, env, flagFiles, plugins, waitForUncached: options.waitForUncached, deferStart: options.deferStart ?? false, onProblem: warn, limits: options.limits, sandbox: options.sandbox });
}
