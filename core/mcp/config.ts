import { rawServers } from "./config-files.ts";
import type { PluginServers } from "../plugins/wiring.ts";
import { type ResolvedServer, SERVER_NAME, type ServerEntry, ServerEntrySchema, type StdioServerEntry, isRemote } from "./config-schema.ts";
import { UnsetVariableError, expandRecord, expandVariables } from "./expand.ts";
import { entryKey } from "./tool-cache.ts";
import { describeZodError } from "../errors/zod-issues.ts";

export { parseMcpFile, readMcpFile, type McpFileContent } from "./config-files.ts";

type Env = Record<string, string | undefined>;

/** A server entry checked against the schema; throws an Error whose message says what is wrong. */
export function validateServerEntry(name: string, raw: unknown): ServerEntry {
  if (!SERVER_NAME.test(name)) throw new Error(`the name must be 1 to 64 of A-Z a-z 0-9 _ . -`);
  const parsed = ServerEntrySchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const text = describeZodError(parsed.error, "", { all: true });
  throw new Error(`${text || "not a server entry"} (expected {"command": ..., "args": [...]} or {"type": "http", "url": ...})`);
}

/** Expands `${VAR}` in command, args, env, cwd, url and headers; an unset variable names itself. */
export function resolveEntry(entry: ServerEntry, env: Env): ServerEntry {
  try {
    if (isRemote(entry)) {
      return { ...entry, url: expandVariables(entry.url, env), headers: expandRecord(entry.headers, env) };
    }
    const stdio = entry as StdioServerEntry;
    return {
      ...stdio,
      command: expandVariables(stdio.command, env),
      args: stdio.args.map((arg) => expandVariables(arg, env)),
      env: expandRecord(stdio.env, env),
      ...(stdio.cwd === undefined ? {} : { cwd: expandVariables(stdio.cwd, env) }),
    };
  } catch (error) {
    if (error instanceof UnsetVariableError) {
      throw new Error(`\${${error.variable}} is not set: set it in the environment or write \${${error.variable}:-default}`);
    }
    throw error;
  }
}

export interface LoadMcpConfigOptions {
  cwd: string;
  /** `--mcp-config` files; each must exist. */
  flagFiles?: readonly string[];
  plugins?: readonly PluginServers[];
  env?: NodeJS.ProcessEnv;
}

export interface McpConfig {
  /** Enabled servers, later sources overriding earlier ones of the same name. */
  servers: ResolvedServer[];
  /** Servers switched off with `"enabled": false`. */
  disabled: ResolvedServer[];
  /** One line per server or file that could not be used; the others still run. */
  problems: string[];
}

/**
 * Every configured MCP server: user, project (only in a trusted folder), plugins, then
 * `--mcp-config` files. A broken file or entry is reported and left out; it never stops the rest.
 */
export function loadMcpConfig(options: LoadMcpConfigOptions): McpConfig {
  const env = options.env ?? process.env;
  const { servers: raws, problems } = rawServers(options.cwd, options.flagFiles ?? [], options.plugins ?? [], env);
  const servers: ResolvedServer[] = [];
  const disabled: ResolvedServer[] = [];
  for (const { name, raw, scope, source, fromProject } of raws) {
    try {
      const entry = validateServerEntry(name, raw);
      const base = { name, scope, source, key: entryKey(raw), fromProject };
      if (entry.enabled === false) disabled.push({ ...entry, ...base });
      else servers.push({ ...resolveEntry(entry, env), ...base });
    } catch (error) {
      problems.push(`MCP server "${name}" in ${source}: ${(error as Error).message}`);
    }
  }
  return { servers, disabled, problems };
}
