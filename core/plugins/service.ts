import { existsSync } from "node:fs";
import { join } from "node:path";
import { OmpError } from "../errors/omp-error.ts";
import { describeSource } from "./catalog.ts";
import { type InstallResult, type Scope, installFromMarketplace, installedFile, scopeOf, setMarketplacePluginEnabled, uninstallMarketplacePlugin } from "./install.ts";
import { type LocalInstallResult, installLocalPlugin, uninstallLocalPlugin } from "./local-install.ts";
import { loadCatalog } from "./marketplaces.ts";
import { type ClaudeInstall, claudeInstalls } from "./claude-installs.ts";
import { setClaudeDisabled } from "./claude-switch.ts";
import { parseFeatureSpec, parsePluginId } from "./names.ts";
import { npmLockFile, npmModulesDir } from "./paths.ts";
import { readInstalled, readMarketplaces, readNpmLock, withPluginsLock, writeState } from "./state.ts";
import { withDeclaredNpmPlugins } from "./session-state.ts";
import { EXIT_USAGE } from "../errors/exit-codes.ts";

/**
 * The operations `omp plugin` and the interactive `/plugin` share, each under the plugins lock:
 * `name@marketplace` goes to the marketplace installer, anything else (npm spec, git URL, folder,
 * .tgz) to the package installer.
 */
export type AnyInstall = ({ kind: "marketplace" } & InstallResult) | ({ kind: "package" } & LocalInstallResult);

/**
 * `x@y` is a marketplace plugin unless y is no added marketplace and reads as an npm version or tag
 * (`pkg@1.2.3`, `pkg@^2`, `pkg@latest`).
 */
function isMarketplaceTarget(target: string): boolean {
  const id = parsePluginId(target);
  if (!id || /[[\]/]/.test(target)) return false;
  if (readMarketplaces().marketplaces.some((record) => record.name === id.marketplace)) return true;
  return !/^(\d|latest$|next$|beta$|canary$)/.test(id.marketplace);
}

export function install(target: string, scope: Scope, cwd: string): Promise<AnyInstall> {
  return withPluginsLock(async () => {
    if (isMarketplaceTarget(target)) return { kind: "marketplace", ...(await installFromMarketplace(parsePluginId(target)!, scope, cwd)) };
    if (scope === "project") throw new OmpError("npm, git, folder and archive plugins install for the user only; drop --scope project", { exitCode: EXIT_USAGE });
    return { kind: "package", ...(await installLocalPlugin(parseFeatureSpec(target), cwd)) };
  });
}

/** A Claude Code install omp only reads, when omp has no install of its own under that id. */
function claudeOnly(target: string, cwd: string): ClaudeInstall | undefined {
  if (!parsePluginId(target)) return undefined;
  for (const scope of ["user", "project"] as const) if (readInstalled(installedFile(scope, cwd)).plugins[target]) return undefined;
  return claudeInstalls(cwd).find((install) => install.id === target);
}

export function uninstall(target: string, scope: Scope | undefined, cwd: string): Promise<string> {
  return withPluginsLock(async () => {
    if (claudeOnly(target, cwd)) {
      throw new OmpError(`${target} was installed by Claude Code, and omp never changes ~/.claude: remove it with \`claude plugin uninstall ${target}\`, or turn it off for omp only with \`omp plugin disable ${target}\``);
    }
    if (parsePluginId(target) && readNpmLock().plugins[target] === undefined) {
      const chosen = scopeOf(target, cwd, scope);
      uninstallMarketplacePlugin(target, chosen, cwd);
      return `${target} (${chosen})`;
    }
    uninstallLocalPlugin(target);
    return target;
  });
}

export function setEnabled(target: string, enabled: boolean, scope: Scope | undefined, cwd: string): Promise<string> {
  return withPluginsLock(async () => {
    const lock = readNpmLock();
    if (lock.plugins[target]) {
      lock.plugins[target]!.enabled = enabled;
      writeState(npmLockFile(), lock);
      return target;
    }
    if (!parsePluginId(target)) throw new OmpError(`${target} is not installed; see \`omp plugin list\``);
    if (claudeOnly(target, cwd)) {
      setClaudeDisabled(target, !enabled);
      return `${target} (installed by Claude Code; switched in omp only)`;
    }
    const chosen = scopeOf(target, cwd, scope);
    setMarketplacePluginEnabled(target, chosen, cwd, enabled);
    return `${target} (${chosen})`;
  });
}

export interface ListedPlugin {
  id: string;
  kind: "marketplace" | "package" | "claude";
  scope: Scope;
  version: string;
  enabled: boolean;
  path: string;
  source?: string;
  features?: string[] | null;
  /** For Claude Code's installs: why it is off, or not found, or left for omp's own install. */
  note?: string;
}

function claudeNote(install: ClaudeInstall, ompIds: Set<string>): string | undefined {
  if (!install.root) return install.problem;
  if (ompIds.has(install.id)) return "omp's own install of it is used instead";
  if (install.disabledInOmp) return "disabled in omp (`omp plugin enable` turns it back on)";
  if (!install.enabledInClaude) return `disabled in Claude Code's ${install.byProject ? "project" : "user"} settings`;
  return undefined;
}

export function listPlugins(cwd: string): ListedPlugin[] {
  const listed: ListedPlugin[] = [];
  for (const scope of ["project", "user"] as const) {
    const file = installedFile(scope, cwd);
    if (!existsSync(file)) continue;
    for (const [id, records] of Object.entries(readInstalled(file).plugins)) {
      for (const record of records) listed.push({ id, kind: "marketplace", scope: record.scope, version: record.version, enabled: record.enabled !== false, path: record.installPath });
    }
  }
  const locked = readNpmLock().plugins;
  for (const [name, state] of Object.entries(withDeclaredNpmPlugins(locked))) {
    listed.push({ id: name, kind: "package", scope: "user", version: state.version, enabled: state.enabled, path: join(npmModulesDir(), name), source: state.source, features: state.enabledFeatures });
  }
  const ompIds = new Set(listed.filter((plugin) => plugin.kind === "marketplace").map((plugin) => plugin.id));
  for (const install of claudeInstalls(cwd)) {
    const note = claudeNote(install, ompIds);
    listed.push({
      id: install.id,
      kind: "claude",
      scope: install.scope,
      version: install.version,
      enabled: note === undefined,
      path: install.root ?? "",
      source: `claude-code${install.marketplaceSource ? ` (${install.marketplaceSource})` : ""}`,
      ...(note ? { note } : {}),
    });
  }
  return listed;
}

export interface Offer {
  marketplace: string;
  name: string;
  description?: string;
  version?: string;
  source: string;
  installed: boolean;
  unavailable?: string;
}

export function discover(cwd: string, only?: string): Offer[] {
  const installed = new Set(listPlugins(cwd).map((plugin) => plugin.id));
  const offers: Offer[] = [];
  for (const record of readMarketplaces().marketplaces) {
    if (only && record.name !== only) continue;
    const catalog = loadCatalog(record);
    for (const entry of catalog.plugins) {
      const id = `${entry.name}@${record.name}`;
      offers.push({ marketplace: record.name, name: entry.name, description: entry.description, version: entry.version, source: describeSource(entry.source), installed: installed.has(id) });
    }
    for (const skipped of catalog.skipped) offers.push({ marketplace: record.name, name: skipped.name, source: "?", installed: false, unavailable: skipped.reason });
  }
  if (only && offers.length === 0 && !readMarketplaces().marketplaces.some((record) => record.name === only)) {
    throw new OmpError(`no marketplace named ${only}; see \`omp plugin marketplace list\``);
  }
  return offers;
}

/** Reinstalls from the same place: the marketplace's current catalog, or the recorded spec/folder/URL. */
export async function update(target: string | undefined, scope: Scope | undefined, cwd: string): Promise<AnyInstall[]> {
  const chosen = listPlugins(cwd).filter((plugin) => (target === undefined || plugin.id === target) && (scope === undefined || plugin.scope === scope));
  if (target !== undefined && chosen.length === 0) throw new OmpError(`${target} is not installed; see \`omp plugin list\``);
  const results: AnyInstall[] = [];
  for (const plugin of chosen) {
    if (plugin.kind === "claude") continue;
    if (plugin.kind === "marketplace") results.push(await install(plugin.id, plugin.scope, cwd));
    else if (plugin.source && readNpmLock().plugins[plugin.id]?.kind !== "link") {
      const features = plugin.features === null || plugin.features === undefined ? "" : `[${plugin.features.join(",")}]`;
      results.push(await install(`${plugin.source}${features}`, "user", cwd));
    }
  }
  return results;
}
