import { readFileSync } from "node:fs";
import { jsonSyntaxError } from "../fs/json-syntax.ts";
import { OmpError } from "../errors/omp-error.ts";
import { displayPath } from "../paths.ts";
import { folderTrust, noteSkippedForTrust } from "../trust/folder-trust.ts";
import { partChanged } from "../trust/content-pins.ts";
import { mcpFiles } from "./config-paths.ts";
import type { PluginServers } from "../plugins/wiring.ts";
import type { ServerScope } from "./config-schema-types.ts";
import { EXIT_USAGE } from "../errors/exit-codes.ts";

/**
 * Reading MCP config files without validating them: JSON only, no zod, so start-up can see which
 * servers are configured (and whether their tool lists are cached) before loading the SDK.
 */

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
    throw new OmpError(`${displayPath(path)}: not valid JSON (${jsonSyntaxError(text) ?? (error as Error).message}); fix the file or remove it.`, { exitCode: EXIT_USAGE });
  }
  if (document === null || typeof document !== "object" || Array.isArray(document)) {
    throw new OmpError(`${displayPath(path)}: expected a JSON object such as {"mcpServers": {"name": {"command": "..."}}}.`, { exitCode: EXIT_USAGE });
  }
  const record = document as Record<string, unknown>;
  const inner = record.mcpServers;
  if (inner !== undefined) {
    if (inner === null || typeof inner !== "object" || Array.isArray(inner)) {
      throw new OmpError(`${displayPath(path)}: "mcpServers" must be an object of server entries.`, { exitCode: EXIT_USAGE });
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
    throw new OmpError(`${displayPath(path)}: cannot read (${(error as Error).message}).`, { exitCode: EXIT_USAGE });
  }
  return parseMcpFile(text, path);
}

export interface RawServer {
  name: string;
  raw: unknown;
  scope: ServerScope;
  source: string;
  fromProject: boolean;
}

export interface RawServers {
  /** By name, the later source winning; each entry as written. */
  servers: RawServer[];
  /** Files that could not be read, one line each. */
  problems: string[];
}

/**
 * Every configured server entry, lowest precedence first: user, project (only in a trusted
 * folder; otherwise noted and reported), plugins, `--mcp-config` files (which must exist).
 */
export function rawServers(cwd: string, flagFiles: readonly string[], plugins: readonly PluginServers[], env: NodeJS.ProcessEnv): RawServers {
  const problems: string[] = [];
  const byName = new Map<string, RawServer>();
  const add = (scope: ServerScope, source: string, servers: Record<string, unknown>, fromProject = scope === "project") => {
    for (const [name, raw] of Object.entries(servers)) {
      byName.delete(name);
      byName.set(name, { name, raw, scope, source, fromProject });
    }
  };
  const files = mcpFiles(cwd, flagFiles, env);
  const project = files.filter((file) => file.kind === "project");
  const trusted = project.length === 0 || folderTrust(cwd, { env }).trusted;
  // A file changed since the folder was trusted waits for the user to accept it (changedNotice).
  const unchanged = (file: { path: string }) => !partChanged(cwd, file.path, env);
  if (!trusted) {
    const what = `MCP servers in ${project.map((file) => displayPath(file.path)).join(" and ")}`;
    noteSkippedForTrust(what);
    problems.push(`${what} were skipped: ${displayPath(cwd)} is not trusted (trust the folder to run them)`);
  }
  const fromFile = (file: { kind: "user" | "project" | "flag"; path: string }) => {
    try {
      const content = readMcpFile(file.path);
      if (content === undefined) throw new OmpError(`${displayPath(file.path)}: file not found (given with --mcp-config).`, { exitCode: EXIT_USAGE });
      add(file.kind, displayPath(file.path), content.servers);
    } catch (error) {
      if (file.kind === "flag") throw error;
      problems.push((error as Error).message);
    }
  };
  for (const file of files.filter((f) => f.kind === "user")) fromFile(file);
  if (trusted) for (const file of project.filter(unchanged)) fromFile(file);
  // The plugin loader decides which plugins may run code; what it hands over is taken as is.
  for (const plugin of plugins) add("plugin", plugin.source, plugin.servers, plugin.fromProject ?? false);
  for (const file of files.filter((f) => f.kind === "flag")) fromFile(file);
  return { servers: [...byName.values()], problems };
}

/** `"enabled": false`, read without the schema. */
export const switchedOff = (raw: unknown) => (raw as { enabled?: unknown } | null)?.enabled === false;
