import { existsSync, readdirSync, realpathSync, statSync } from "node:fs";
import { isAbsolute, join, relative, resolve } from "node:path";
import { readJsonIfPresent } from "../fs/read-json.ts";
import { expandHome, homeDir } from "../paths.ts";
import { parsePluginId } from "./names.ts";
import { projectRoot } from "../fs/project-root.ts";
import { claudeOverridesFile } from "./paths.ts";

/**
 * The plugins Claude Code installed, read in place and never written: `~/.claude/plugins/`
 * (`installed_plugins.json` version 1 or 2, `known_marketplaces.json`) and `enabledPlugins` in
 * Claude Code's user, project and local settings. Read on every session start, so by hand (no zod):
 * odd records are skipped or repaired one by one, never fatal. omp's own switch for them lives in
 * `~/.omp/plugins/claude_plugins.json`.
 */
export interface ClaudeInstall {
  id: string;
  name: string;
  marketplace: string;
  scope: "user" | "project";
  version: string;
  /** The plugin folder found on this machine, or null with `problem` saying why. */
  root: string | null;
  problem?: string;
  /** Where its marketplace comes from, as known_marketplaces.json says. */
  marketplaceSource?: string;
  /** Claude Code's settings enable it (an install nobody switched off is enabled, as Claude Code installs it). */
  enabledInClaude: boolean;
  /** Switched off with `omp plugin disable`. */
  disabledInOmp: boolean;
  /** The decision came from the project's settings, which may run code only in a trusted folder. */
  byProject: boolean;
  /** Its marketplace entry, whose component lists (`skills`, `agents`, …) Claude Code applies to the folder. */
  entry?: Record<string, unknown>;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);
const text = (value: unknown) => (typeof value === "string" && value !== "" ? value : undefined);

/** `CLAUDE_CONFIG_DIR` moves Claude Code's whole folder; omp follows it. */
export const claudeDir = () => (process.env.CLAUDE_CONFIG_DIR ? resolve(expandHome(process.env.CLAUDE_CONFIG_DIR)) : join(homeDir(), ".claude"));
export const claudeInstalledFile = () => join(claudeDir(), "plugins", "installed_plugins.json");

/** Version 2 keeps a list of records per plugin, version 1 one record; either shape is taken under either number. */
function recordsOf(raw: unknown): Record<string, Record<string, unknown>[]> {
  const plugins = isRecord(raw) && isRecord(raw.plugins) ? raw.plugins : isRecord(raw) ? raw : {};
  const out: Record<string, Record<string, unknown>[]> = {};
  for (const [id, value] of Object.entries(plugins)) {
    const list = (Array.isArray(value) ? value : [value]).filter(isRecord);
    if (list.length > 0 && parsePluginId(id)) out[id] = list;
  }
  return out;
}

function usable(dir: string): boolean {
  try {
    return statSync(dir).isDirectory() && readdirSync(dir).length > 0;
  } catch {
    return false;
  }
}

function inside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

/** A relative catalog source of the marketplace's own clone, kept inside it. */
/** The plugin's entry in the marketplace clone's catalog, when there is one. */
function marketplaceEntry(location: string | undefined, plugin: string): { catalog: Record<string, unknown>; entry?: Record<string, unknown> } | null {
  if (!location || !existsSync(location)) return null;
  const catalog = readJsonIfPresent(join(location, ".claude-plugin", "marketplace.json"));
  if (!isRecord(catalog) || !Array.isArray(catalog.plugins)) return null;
  return { catalog, entry: catalog.plugins.find((item) => isRecord(item) && item.name === plugin) as Record<string, unknown> | undefined };
}

function fromMarketplaceClone(location: string | undefined, plugin: string): string | null {
  const found = marketplaceEntry(location, plugin);
  if (!found || !location) return null;
  const { catalog, entry } = found;
  const source = text(entry?.source) ?? (isRecord(entry?.source) && entry.source.source === "directory" ? text(entry.source.path) : undefined);
  if (!source) return null;
  const rel = source.replace(/^\.\/?/, "");
  const pluginRoot = isRecord(catalog.metadata) ? text(catalog.metadata.pluginRoot) : undefined;
  const root = realpathSync(location);
  const target = resolve(pluginRoot && rel !== "" ? resolve(root, pluginRoot) : root, rel);
  if (!usable(target) || !inside(root, realpathSync(target))) return null;
  return realpathSync(target);
}

/**
 * The recorded install path, else the same path under this machine's Claude folder (a file synced
 * from another machine or user), else the plugin inside its marketplace's clone (Claude Code
 * versions that left the cache folder empty).
 */
function findRoot(record: Record<string, unknown>, plugin: string, marketLocation: string | undefined): string | null {
  const base = join(claudeDir(), "plugins");
  const recorded = text(record.installPath);
  const candidates: string[] = [];
  if (recorded) {
    candidates.push(resolve(base, expandHome(recorded)));
    const moved = /[\\/]\.claude[\\/]plugins[\\/](.+)$/.exec(recorded)?.[1];
    if (moved) candidates.push(join(base, moved));
  }
  for (const candidate of candidates) if (usable(candidate)) return candidate;
  return fromMarketplaceClone(marketLocation, plugin);
}

function describeMarketplaceSource(source: unknown): string | undefined {
  if (!isRecord(source)) return text(source);
  return text(source.repo) ?? text(source.url) ?? text(source.path) ?? text(source.package);
}

/** enabledPlugins as an object of id → boolean, or (older files) a list of enabled ids. */
function enabledIn(file: string): Map<string, boolean> {
  const value = (readJsonIfPresent(file) as { enabledPlugins?: unknown } | undefined)?.enabledPlugins;
  const map = new Map<string, boolean>();
  if (Array.isArray(value)) for (const id of value) if (typeof id === "string") map.set(id, true);
  if (isRecord(value)) for (const [id, on] of Object.entries(value)) if (typeof on === "boolean") map.set(id, on);
  return map;
}

/** The files whose change changes the answer, for the session's cache key. */
export function claudeStateFiles(cwd: string): string[] {
  const project = projectRoot(cwd);
  return [claudeInstalledFile(), join(claudeDir(), "settings.json"), join(project, ".claude", "settings.json"), join(project, ".claude", "settings.local.json"), claudeOverridesFile()];
}

export function claudeDisabledInOmp(): Set<string> {
  const raw = readJsonIfPresent(claudeOverridesFile());
  return new Set(isRecord(raw) && Array.isArray(raw.disabled) ? raw.disabled.filter((id): id is string => typeof id === "string") : []);
}

/**
 * Every plugin Claude Code installed for the user, or for this project (`projectPath`), with
 * whether Claude Code's settings and omp's switch leave it on.
 */
export function claudeInstalls(cwd: string): ClaudeInstall[] {
  const file = claudeInstalledFile();
  if (!existsSync(file)) return [];
  const known = readJsonIfPresent(join(claudeDir(), "plugins", "known_marketplaces.json"));
  const project = projectRoot(cwd);
  const user = enabledIn(join(claudeDir(), "settings.json"));
  const shared = enabledIn(join(project, ".claude", "settings.json"));
  const local = enabledIn(join(project, ".claude", "settings.local.json"));
  const disabled = claudeDisabledInOmp();
  const found: ClaudeInstall[] = [];
  for (const [id, records] of Object.entries(recordsOf(readJsonIfPresent(file)))) {
    const { plugin, marketplace } = parsePluginId(id)!;
    const market = isRecord(known) && isRecord(known[marketplace]) ? known[marketplace] : undefined;
    const here = (record: Record<string, unknown>) => {
      const path = text(record.projectPath);
      return path !== undefined && resolve(expandHome(path)) === project;
    };
    // This project's install first (as Claude Code shadows), then the user's; other projects' are not ours.
    const record = records.find((item) => item.scope !== "user" && item.scope !== undefined && here(item)) ?? records.find((item) => item.scope === "user" || item.scope === undefined);
    if (!record) continue;
    const location = text(market?.installLocation) ?? join(claudeDir(), "plugins", "marketplaces", marketplace);
    const root = findRoot(record, plugin, location);
    const entry = marketplaceEntry(location, plugin)?.entry;
    const decidedBy = local.has(id) ? local : shared.has(id) ? shared : user;
    found.push({
      id,
      name: plugin,
      marketplace,
      scope: record.scope === "user" || record.scope === undefined ? "user" : "project",
      version: text(record.version) ?? "unknown",
      root,
      ...(root ? {} : { problem: `its folder was not found (${text(record.installPath) ?? "no installPath recorded"})` }),
      marketplaceSource: describeMarketplaceSource(market?.source),
      enabledInClaude: decidedBy.get(id) ?? true,
      disabledInOmp: disabled.has(id),
      byProject: decidedBy !== user,
      ...(entry ? { entry } : {}),
    });
  }
  return found;
}
