import { readFileSync } from "node:fs";
import { OmpError } from "../errors/omp-error.ts";
import { displayPath } from "../paths.ts";
import { folderTrust, noteSkippedForTrust } from "../trust/folder-trust.ts";
import { type McpFile, mcpFiles } from "./config-paths.ts";
import { type ResolvedServer, SERVER_NAME, type ServerEntry, ServerEntrySchema, type ServerScope, type StdioServerEntry, isRemote } from "./config-schema.ts";
import { UnsetVariableError, expandRecord, expandVariables } from "./expand.ts";

type Env = Record<string, string | undefined>;

/** A config file's servers, in either shape, with how it was written so a writer can keep it. */
export interface McpFileContent {
  servers: Record<string, unknown>;
  /** `{"mcpServers": {...}}` rather than the flat shape. */
  wrapped: boolean;
  /** The whole parsed file (other keys are kept when omp writes it). */
  document: Record<string, unknown>;
}

/** Keys of the wrapped shape that are not servers in a flat file either. */
const NOT_SERVERS = new Set(["$schema", "mcpServers", "disabledServers"]);

/** Parses a config file; throws an OmpError naming the file when it is not a JSON object. */
export function parseMcpFile(text: string, path: string): McpFileContent {
  let document: unknown;
  try {
    document = text.trim() === "" ? {} : JSON.parse(text);
  } catch (error) {
    throw new OmpError(`${displayPath(path)}: not valid JSON (${(error as Error).message}); fix the file or remove it.`, { exitCode: 2 });
  }
  if (document === null || typeof document !== "object" || Array.isArray(document)) {
    throw new OmpError(`${displayPath(path)}: expected a JSON object such as {"mcpServers": {"name": {"command": "..."}}}.`, { exitCode: 2 });
  }
  const record = document as Record<string, unknown>;
  const inner = record.mcpServers;
  if (inner !== undefined) {
    if (inner === null || typeof inner !== "object" || Array.isArray(inner)) {
      throw new OmpError(`${displayPath(path)}: "mcpServers" must be an object of server entries.`, { exitCode: 2 });
    }
    return { servers: inner as Record<string, unknown>, wrapped: true, document: record };
  }
  const servers = Object.fromEntries(Object.entries(record).filter(([key]) => !NOT_SERVERS.has(key)));
  return { servers, wrapped: false, document: record };
}

/** Reads a config file; undefined when it does not exist. */
export function readMcpFile(path: string): McpFileContent | undefined {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new OmpError(`${displayPath(path)}: cannot read (${(error as Error).message}).`, { exitCode: 2 });
  }
  return parseMcpFile(text, path);
}

/** A server entry checked against the schema; throws an Error whose message says what is wrong. */
export function validateServerEntry(name: string, raw: unknown): ServerEntry {
  if (!SERVER_NAME.test(name)) throw new Error(`the name must be 1 to 64 of A-Z a-z 0-9 _ . -`);
  const parsed = ServerEntrySchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.flatMap((issue) =>
    issue.code === "invalid_union" ? issue.errors.flat() : [issue],
  );
  const text = [...new Set(issues.map((issue) => `${issue.path.length > 0 ? `${issue.path.join(".")}: ` : ""}${issue.message}`))].join("; ");
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

export interface PluginServers {
  /** The plugin, for messages. */
  source: string;
  servers: Record<string, unknown>;
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
  const problems: string[] = [];
  const byName = new Map<string, ResolvedServer>();
  const add = (scope: ServerScope, source: string, servers: Record<string, unknown>) => {
    for (const [name, raw] of Object.entries(servers)) {
      try {
        const entry = validateServerEntry(name, raw);
        byName.delete(name);
        byName.set(name, { ...entry, name, scope, source });
      } catch (error) {
        byName.delete(name);
        problems.push(`MCP server "${name}" in ${source}: ${(error as Error).message}`);
      }
    }
  };
  const files = mcpFiles(options.cwd, options.flagFiles, env);
  const project = files.filter((file) => file.kind === "project");
  const trusted = project.length === 0 || folderTrust(options.cwd, { env }).trusted;
  if (!trusted) {
    const what = `MCP servers in ${project.map((file) => displayPath(file.path)).join(" and ")}`;
    noteSkippedForTrust(what);
    problems.push(`${what} were skipped: ${displayPath(options.cwd)} is not trusted (trust the folder to run them)`);
  }
  const fromFile = (file: McpFile) => {
    try {
      const content = readMcpFile(file.path);
      if (content === undefined) throw new OmpError(`${displayPath(file.path)}: file not found (given with --mcp-config).`, { exitCode: 2 });
      add(file.kind, displayPath(file.path), content.servers);
    } catch (error) {
      if (file.kind === "flag") throw error;
      problems.push((error as Error).message);
    }
  };
  for (const file of files.filter((f) => f.kind === "user")) fromFile(file);
  if (trusted) for (const file of project) fromFile(file);
  // The plugin loader decides which plugins may run code; what it hands over is taken as is.
  for (const plugin of options.plugins ?? []) add("plugin", plugin.source, plugin.servers);
  for (const file of files.filter((f) => f.kind === "flag")) fromFile(file);

  const servers: ResolvedServer[] = [];
  const disabled: ResolvedServer[] = [];
  for (const server of byName.values()) {
    if (server.enabled === false) {
      disabled.push(server);
      continue;
    }
    try {
      servers.push({ ...resolveEntry(server, env), name: server.name, scope: server.scope, source: server.source });
    } catch (error) {
      problems.push(`MCP server "${server.name}" in ${server.source}: ${(error as Error).message}`);
    }
  }
  return { servers, disabled, problems };
}
