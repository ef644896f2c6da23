import { displayPath } from "../paths.ts";
import { loadLspServers, resolveCommand } from "./config.ts";
import type { ServerStatus } from "./manager.ts";

export interface ServerOverview {
  name: string;
  fileTypes: string[];
  source: string;
  /** The program that would run in `cwd`, or undefined when it is not installed. */
  command?: string;
  install?: string;
}

/** Every configured server and whether it can run in `cwd` (for `omp doctor` and `/lsp`), with config problems. */
export function lspOverview(cwd: string, settingsServers: Record<string, unknown>): { servers: ServerOverview[]; warnings: string[]; skipped: string[] } {
  const { servers, warnings, skipped } = loadLspServers(cwd, settingsServers);
  return {
    servers: servers.map((server) => ({
      name: server.name,
      fileTypes: server.fileTypes,
      source: server.source,
      ...(resolveCommand(server.command, cwd, cwd) ? { command: resolveCommand(server.command, cwd, cwd) } : {}),
      ...(server.install ? { install: server.install } : {}),
    })),
    warnings,
    skipped,
  };
}

/** Human lines: the installed and missing servers, then (nearest the prompt) the running ones. */
export function overviewLines(overview: ReturnType<typeof lspOverview>, running: ServerStatus[] = []): string[] {
  const runningLines = running.map((status) => `${status.name}: ${status.state}${status.pid ? `, pid ${status.pid}` : ""}, ${status.openFiles} open file(s)${status.restarts ? `, restarted ${status.restarts}x` : ""}, in ${displayPath(status.root)}${status.detail ? ` - ${status.detail}` : ""}`);
  const lines: string[] = [];
  const started = new Set(running.map((status) => status.name));
  for (const server of overview.servers) {
    if (started.has(server.name)) continue;
    const types = server.fileTypes.join(" ");
    lines.push(server.command ? `${server.name}: installed (${displayPath(server.command)}), starts on first ${types} file` : `${server.name}: not installed${server.install ? ` (${server.install})` : ""} - ${types}`);
  }
  for (const warning of overview.warnings) lines.push(`warning: ${warning}`);
  if (overview.skipped.length > 0) lines.push(`not trusted, so not run: ${overview.skipped.join(", ")}`);
  return [...lines, ...runningLines];
}
