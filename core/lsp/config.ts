import { existsSync, readFileSync } from "node:fs";
import { delimiter, dirname, isAbsolute, join, resolve } from "node:path";
import { readConfigText } from "../config/config-file.ts";
import { lspFilesIn, projectLspFiles } from "./project-files.ts";
import { agentDir, displayPath, homeDir, projectConfigPath } from "../paths.ts";
import { readPluginJson } from "../plugins/components.ts";
import { enabledPlugins } from "../plugins/enabled.ts";
import { folderTrust, noteSkippedForTrust } from "../trust/folder-trust.ts";
import { partChanged } from "../trust/content-pins.ts";
import { BUILTIN_SERVERS, type ServerConfig, type ServerEntry, completeServer, mergeEntry, parseServerFile } from "./server-config.ts";

/** Every server a session in `cwd` may run, and what was wrong with the configuration. */
export interface LspServers {
  servers: ServerConfig[];
  warnings: string[];
  /** Project files left out because the folder is untrusted. */
  skipped: string[];
}

function readDocument(file: string): unknown {
  const text = readFileSync(file, "utf8");
  if (file.endsWith(".json")) return JSON.parse(text);
  return (require("yaml") as typeof import("yaml")).parse(text);
}

/** A plugin's servers: `lspServers` in plugin.json (inline or a path) and `.lsp.json` in its root. */
function pluginDocuments(root: string, warn: (line: string) => void): { file: string; document: unknown }[] {
  const found: { file: string; document: unknown }[] = [];
  const given = (readPluginJson(root) as Record<string, unknown> | null)?.lspServers;
  const paths = typeof given === "string" ? [given] : Array.isArray(given) ? given.filter((item): item is string => typeof item === "string") : [];
  if (given && typeof given === "object" && !Array.isArray(given)) found.push({ file: join(root, ".claude-plugin", "plugin.json"), document: given });
  for (const file of [join(root, ".lsp.json"), ...paths.map((path) => resolve(root, path))]) {
    if (!existsSync(file)) continue;
    try {
      const text = JSON.stringify(readDocument(file)).replaceAll("${CLAUDE_PLUGIN_ROOT}", root.replaceAll("\\", "\\\\"));
      found.push({ file, document: JSON.parse(text) });
    } catch (error) {
      warn(`${displayPath(file)}: ${(error as Error).message}; its language servers are ignored`);
    }
  }
  return found;
}

/**
 * Built-ins ← ~/lsp.* ← plugins ← user config dirs ← `lsp.servers` in settings ← project files,
 * later winning field by field (omp-docs/lsp-config.md). Project files (and project plugins) can
 * start programs, so they count only in a trusted folder; otherwise they are noted as skipped.
 */
export function loadLspServers(cwd: string, settingsServers: Record<string, unknown>, env: NodeJS.ProcessEnv = process.env): LspServers {
  const warnings: string[] = [];
  const skipped: string[] = [];
  const warn = (line: string) => warnings.push(line);
  const entries: Record<string, ServerEntry> = { ...BUILTIN_SERVERS };
  const sources: Record<string, string> = Object.fromEntries(Object.keys(BUILTIN_SERVERS).map((name) => [name, "built-in"]));
  // A server any field of which the project gave runs sandboxed: its args alone can run anything.
  const fromProject = new Set<string>();
  const apply = (document: unknown, source: string, project = false) => {
    for (const [name, entry] of Object.entries(parseServerFile(document, warn, source))) {
      entries[name] = mergeEntry(entries[name], entry);
      sources[name] = source;
      if (project) fromProject.add(name);
    }
  };
  const applyFile = (file: string, project = false) => {
    try {
      apply(readDocument(file), displayPath(file), project);
    } catch (error) {
      warn(`${displayPath(file)}: ${(error as Error).message}; ignored`);
    }
  };
  const home = homeDir();
  for (const file of lspFilesIn(home)) applyFile(file);
  for (const plugin of enabledPlugins(cwd)) {
    const documents = pluginDocuments(plugin.root, warn);
    if (documents.length === 0) continue;
    if (!plugin.trusted) {
      noteSkippedForTrust(`language servers of project plugin ${plugin.id}`);
      skipped.push(`plugin ${plugin.id}`);
      continue;
    }
    for (const { document } of documents) apply(document, `plugin ${plugin.id}`, plugin.scope === "project");
  }
  for (const dir of [agentDir(env), join(home, ".claude"), join(home, ".codex"), join(home, ".gemini")]) for (const file of lspFilesIn(dir)) applyFile(file);
  if (Object.keys(settingsServers).length > 0) {
    apply({ servers: settingsServers }, "settings lsp.servers");
    for (const name of projectSettingsServers(cwd)) if (Object.hasOwn(settingsServers, name)) fromProject.add(name);
  }
  const project = projectLspFiles(cwd);
  if (project.length > 0) {
    if (folderTrust(cwd, { env }).trusted) for (const file of project.filter((file) => !partChanged(cwd, file, env))) applyFile(file, true);
    else {
      for (const file of project) skipped.push(displayPath(file));
      noteSkippedForTrust(`language servers in ${project.map((file) => displayPath(file)).join(", ")}`);
    }
  }
  const servers: ServerConfig[] = [];
  for (const [name, entry] of Object.entries(entries)) {
    if (entry.disabled) continue;
    const server = completeServer(name, entry, sources[name]!, fromProject.has(name));
    if (typeof server === "string") warn(server);
    else servers.push(server);
  }
  return { servers, warnings, skipped };
}

/** The server names the project's `.omp/config.yml` sets under `lsp.servers` (merged into the settings with the user's). */
function projectSettingsServers(cwd: string): string[] {
  try {
    const text = readConfigText(projectConfigPath(cwd));
    if (text === undefined) return [];
    const servers = ((require("yaml") as typeof import("yaml")).parse(text) as { lsp?: { servers?: unknown } } | null)?.lsp?.servers;
    return servers && typeof servers === "object" ? Object.keys(servers) : [];
  } catch {
    // The settings loader reports a file it cannot read; then nothing of it is in effect.
    return [];
  }
}

/**
 * The program to run for `command`: an absolute path as it is; a name from the project's local
 * bin dirs (node_modules/.bin, .venv/bin), nearest first from `root` up to `cwd`, then PATH.
 */
export function resolveCommand(command: string, root: string, cwd: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (isAbsolute(command)) return existsSync(command) ? command : undefined;
  const dirs: string[] = [];
  for (let dir = root; ; dir = dirname(dir)) {
    dirs.push(join(dir, "node_modules", ".bin"), join(dir, ".venv", "bin"));
    if (dir === cwd || dirname(dir) === dir || !dir.startsWith(cwd)) break;
  }
  const path = [...dirs, ...(env.PATH ?? "").split(delimiter)].filter(Boolean).join(delimiter);
  return Bun.which(command, { PATH: path }) ?? undefined;
}

/**
 * The nearest directory from `file`'s up to `cwd` holding one of the server's root markers, or
 * undefined when none does: as in the original omp, a server runs only in a project it is for (a
 * loose .ts file in a folder without package.json or tsconfig.json starts nothing). A server
 * without root markers runs for any file, rooted at `cwd`.
 */
export function workspaceRoot(server: ServerConfig, file: string, cwd: string): string | undefined {
  const inside = file.startsWith(cwd.endsWith("/") ? cwd : `${cwd}/`);
  if (server.rootMarkers.length === 0) return inside ? cwd : dirname(file);
  const simple = server.rootMarkers.filter((marker) => !marker.includes("*"));
  for (let dir = dirname(file); ; dir = dirname(dir)) {
    if (simple.some((marker) => existsSync(join(dir, marker)))) return dir;
    if (dir === cwd || dirname(dir) === dir || (inside && !dir.startsWith(cwd))) break;
  }
  return undefined;
}
