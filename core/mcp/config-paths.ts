import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { agentDir, expandHome } from "../paths.ts";

/**
 * Where MCP servers are configured. Kept apart from the loader (zod, the SDK) so the agent's
 * start-up can ask "is any server configured?" with a few stat calls, and pay for the rest only
 * when the answer is yes.
 */

export type McpFileKind = "user" | "project" | "flag";

export interface McpFile {
  kind: McpFileKind;
  path: string;
}

export const userMcpPath = (env: NodeJS.ProcessEnv = process.env) => join(agentDir(env), "mcp.json");
/** Claude Code's project file first, then omp's own, which wins on a name both define. */
export const projectMcpPaths = (cwd: string) => [join(cwd, ".mcp.json"), join(cwd, ".omp", "mcp.json")];

/** Every MCP config file that applies, lowest precedence first; `--mcp-config` files are listed even when missing. */
export function mcpFiles(cwd: string, flagFiles: readonly string[] = [], env: NodeJS.ProcessEnv = process.env): McpFile[] {
  const files: McpFile[] = [];
  const user = userMcpPath(env);
  if (existsSync(user)) files.push({ kind: "user", path: user });
  for (const path of projectMcpPaths(cwd)) if (existsSync(path)) files.push({ kind: "project", path });
  for (const file of flagFiles) files.push({ kind: "flag", path: resolve(cwd, expandHome(file)) });
  return files;
}
