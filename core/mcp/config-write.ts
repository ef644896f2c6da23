import { dirname } from "node:path";
import { writeFileAtomic } from "../fs/atomic-write.ts";
import { ownWrite } from "../trust/content-pins.ts";
import { lockPathBeside, withFileLockSync } from "../fs/file-lock.ts";
import { OmpError } from "../errors/omp-error.ts";
import { displayPath, ensurePrivateDir } from "../paths.ts";
import { projectMcpPaths, userMcpPath } from "./config-paths.ts";
import { readMcpFile, validateServerEntry } from "./config.ts";
import { EXIT_FAILURE, EXIT_USAGE } from "../errors/exit-codes.ts";

export const WRITE_SCOPES = ["user", "project"] as const;
export type WriteScope = (typeof WRITE_SCOPES)[number];

/**
 * The file `omp mcp add -s <scope>` writes: `~/.omp/agent/mcp.json`, or the project's
 * `.mcp.json`, the file Claude Code and other clients read too.
 */
export function scopeFile(scope: WriteScope, cwd: string, env: NodeJS.ProcessEnv = process.env): string {
  return scope === "user" ? userMcpPath(env) : projectMcpPaths(cwd)[0]!;
}

/**
 * Changes one server entry of a config file under its lock, keeping the file's shape (wrapped
 * or flat) and its other keys. The user file may hold tokens, so it stays private; the project
 * file is one people commit, written as an editor would.
 */
function updateFile(path: string, scope: WriteScope, change: (servers: Record<string, unknown>) => void): void {
  if (scope === "user") ensurePrivateDir(dirname(path));
  withFileLockSync(lockPathBeside(path), { waitMs: 10_000, what: `another change to ${displayPath(path)}` }, () => {
    const content = readMcpFile(path) ?? { servers: {}, wrapped: true, document: {} };
    const servers = { ...content.servers };
    change(servers);
    const document = content.wrapped
      ? { ...content.document, mcpServers: servers }
      : { ...Object.fromEntries(Object.entries(content.document).filter(([key]) => key.startsWith("$"))), ...servers };
    writeFileAtomic(path, `${JSON.stringify(document, null, 2)}\n`, { mode: scope === "user" ? 0o600 : "user" });
  });
}

/** Adds a server; its entry is validated first, and an existing name is an error. Returns the file written. */
export function addServer(name: string, entry: Record<string, unknown>, scope: WriteScope, cwd: string, env: NodeJS.ProcessEnv = process.env): string {
  try {
    validateServerEntry(name, entry);
  } catch (error) {
    throw new OmpError(`MCP server "${name}": ${(error as Error).message}`, { exitCode: EXIT_USAGE });
  }
  const path = scopeFile(scope, cwd, env);
  ownProjectWrite(scope, cwd, path, env, () =>
    updateFile(path, scope, (servers) => {
      if (Object.hasOwn(servers, name)) {
        throw new OmpError(`MCP server "${name}" already exists in ${displayPath(path)}; remove it first (omp mcp remove ${name} -s ${scope})`, { exitCode: EXIT_FAILURE });
      }
      servers[name] = entry;
    }),
  );
  return path;
}

/** Removes a server from the scope's file, or from whichever single file has it. Returns the file changed. */
export function removeServer(name: string, scope: WriteScope | undefined, cwd: string, env: NodeJS.ProcessEnv = process.env): string {
  const scopes = scope ? [scope] : [...WRITE_SCOPES];
  const holders = scopes.filter((s) => Object.hasOwn(readMcpFile(scopeFile(s, cwd, env))?.servers ?? {}, name));
  if (holders.length === 0) {
    throw new OmpError(`no MCP server named "${name}" in ${scopes.map((s) => displayPath(scopeFile(s, cwd, env))).join(" or ")}; omp mcp list shows them`, { exitCode: EXIT_FAILURE });
  }
  if (holders.length > 1) {
    throw new OmpError(`MCP server "${name}" is in both the user and the project file; say which with -s user or -s project`, { exitCode: EXIT_USAGE });
  }
  const path = scopeFile(holders[0]!, cwd, env);
  ownProjectWrite(holders[0]!, cwd, path, env, () =>
    updateFile(path, holders[0]!, (servers) => {
      delete servers[name];
    }),
  );
  return path;
}

/** The project file, written by the user through omp, stays as trusted as it was (core/trust/content-pins.ts). */
function ownProjectWrite(scope: WriteScope, cwd: string, path: string, env: NodeJS.ProcessEnv, write: () => void): void {
  if (scope === "project") ownWrite(cwd, path, write, env);
  else write();
}
