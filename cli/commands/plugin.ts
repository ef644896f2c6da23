import { OmpError } from "../../core/errors/omp-error.ts";
import { displayPath } from "../../core/paths.ts";
import type { Scope } from "../../core/plugins/install.ts";
import type { AnyInstall } from "../../core/plugins/service.ts";
import { writeFdQuietly, writeStdout } from "../shared/write.ts";
import { EXIT_USAGE } from "../../core/errors/exit-codes.ts";

export interface PluginFlags {
  scope?: string;
  json?: boolean;
  fix?: boolean;
  enable?: string;
  disable?: string;
  set?: string | string[];
  output?: string;
}

const service = () => import("../../core/plugins/service.ts");

function scopeFlag(flags: PluginFlags): Scope | undefined {
  if (flags.scope === undefined) return undefined;
  if (flags.scope !== "user" && flags.scope !== "project") throw new OmpError(`--scope is user or project, not "${flags.scope}"`, { exitCode: EXIT_USAGE });
  return flags.scope;
}

const json = (value: unknown) => writeStdout(`${JSON.stringify(value, null, 2)}\n`);

/** What an install says: where it went, and — the user's moment of trust — every program it will run. */
export function describeInstall(result: AnyInstall): string {
  const name = result.kind === "marketplace" ? `${result.id} ${result.record.version} (${result.scope})` : `${result.name} ${result.version}`;
  const previous = result.previousVersion && result.previousVersion !== (result.kind === "marketplace" ? result.record.version : result.version) ? ` (was ${result.previousVersion})` : "";
  const lines = [`Installed ${name}${previous}.`];
  if (result.kind === "package" && result.features.length > 0) lines.push(`  features: ${result.features.join(", ")}`);
  if (result.kind === "package" && result.dependencies.length > 0) lines.push(`  dependencies: ${result.dependencies.length} packages`);
  if (result.kind === "package") for (const [name, resolved] of Object.entries(result.pinned)) lines.push(`    ${name} from ${resolved}`);
  if (result.runs.length > 0) {
    lines.push("  It will run, in every session from now on:");
    for (const line of result.runs) lines.push(`    ${line}`);
  }
  return `${lines.join("\n")}\n`;
}

export async function runPluginInstall(targets: string[], flags: PluginFlags): Promise<number> {
  const scope = scopeFlag(flags) ?? "user";
  const { install } = await service();
  const results: AnyInstall[] = [];
  for (const target of targets) {
    const result = await install(target, scope, process.cwd());
    results.push(result);
    if (!flags.json) await writeStdout(describeInstall(result));
  }
  if (flags.json) await json(results);
  return 0;
}

export async function runPluginUninstall(target: string, flags: PluginFlags): Promise<number> {
  const removed = await (await service()).uninstall(target, scopeFlag(flags), process.cwd());
  await writeStdout(`Uninstalled ${removed}.\n`);
  return 0;
}

export async function runPluginEnable(target: string, enabled: boolean, flags: PluginFlags): Promise<number> {
  const name = await (await service()).setEnabled(target, enabled, scopeFlag(flags), process.cwd());
  await writeStdout(`${enabled ? "Enabled" : "Disabled"} ${name}; it ${enabled ? "loads" : "contributes nothing"} from the next session.\n`);
  return 0;
}

export async function runPluginUpdate(target: string | undefined, flags: PluginFlags): Promise<number> {
  const results = await (await service()).update(target, scopeFlag(flags), process.cwd());
  if (results.length === 0) await writeStdout("No plugins to update.\n");
  for (const result of results) await writeStdout(describeInstall(result));
  return 0;
}

export async function runPluginList(flags: PluginFlags): Promise<number> {
  const plugins = (await service()).listPlugins(process.cwd());
  if (flags.json) await json(plugins);
  else if (plugins.length === 0) await writeStdout("No plugins installed. Add a marketplace with `omp plugin marketplace add <source>`, or `omp plugin install <npm package | git URL | folder>`.\n");
  else {
    const where = (plugin: (typeof plugins)[number]) =>
      plugin.kind === "marketplace" ? plugin.scope : plugin.kind === "claude" ? `${plugin.source} ${plugin.scope}${plugin.note ? ` — ${plugin.note}` : ""}` : (plugin.source ?? "");
    const rows = plugins.map((plugin) => `${plugin.enabled ? "enabled " : "disabled"}  ${plugin.id}  ${plugin.version}  ${where(plugin)}`);
    await writeStdout(`${rows.join("\n")}\n`);
  }
  return 0;
}

export async function runPluginDiscover(name: string | undefined, flags: PluginFlags): Promise<number> {
  const offers = (await service()).discover(process.cwd(), name);
  if (flags.json) await json(offers);
  else if (offers.length === 0) await writeStdout("No marketplace offers any plugin. Add one with `omp plugin marketplace add <source>`.\n");
  else {
    const rows = offers.map((offer) =>
      offer.unavailable
        ? `  ${offer.name}@${offer.marketplace}  (cannot be installed: ${offer.unavailable})`
        : `${offer.installed ? "* " : "  "}${offer.name}@${offer.marketplace}${offer.version ? ` ${offer.version}` : ""}${offer.description ? ` — ${offer.description}` : ""}`,
    );
    await writeStdout(`${rows.join("\n")}\n`);
  }
  return 0;
}

export async function runPluginLink(path: string): Promise<number> {
  const { withPluginsLock } = await import("../../core/plugins/state.ts");
  const { linkPlugin } = await import("../../core/plugins/local-install.ts");
  const linked = await withPluginsLock(async () => linkPlugin(path, process.cwd()));
  await writeStdout(`Linked ${linked.name} → ${displayPath(linked.target)}; edits there are live from the next session.\n`);
  return 0;
}

const list = (value: string | undefined) => (value === undefined ? undefined : value.split(",").map((item) => item.trim()).filter(Boolean));

export async function runPluginFeatures(name: string, flags: PluginFlags): Promise<number> {
  const manage = await import("../../core/plugins/manage.ts");
  const { withPluginsLock } = await import("../../core/plugins/state.ts");
  if (flags.enable !== undefined || flags.disable !== undefined || flags.set !== undefined) {
    const set = typeof flags.set === "string" ? list(flags.set) : undefined;
    await withPluginsLock(async () => manage.changeFeatures(name, { enable: list(flags.enable), disable: list(flags.disable), set }));
  }
  const features = manage.pluginFeatures(name);
  if (flags.json) await json(features);
  else if (features.length === 0) await writeStdout(`${name} declares no features.\n`);
  else await writeStdout(`${features.map((feature) => `${feature.enabled ? "on " : "off"}  ${feature.name}${feature.default ? " (default)" : ""}${feature.description ? ` — ${feature.description}` : ""}`).join("\n")}\n`);
  return 0;
}

export async function runPluginConfig(name: string, flags: PluginFlags): Promise<number> {
  const manage = await import("../../core/plugins/manage.ts");
  const { withPluginsLock } = await import("../../core/plugins/state.ts");
  const pairs = Array.isArray(flags.set) ? flags.set : flags.set ? [flags.set] : [];
  const settings = pairs.length > 0 ? await withPluginsLock(async () => manage.setPluginSettings(name, pairs)) : manage.pluginSettings(name);
  if (flags.json) await json(settings);
  else await writeStdout(Object.keys(settings).length === 0 ? `${name} has no settings set.\n` : `${Object.entries(settings).map(([key, value]) => `${key}=${JSON.stringify(value)}`).join("\n")}\n`);
  return 0;
}

export async function runPluginDoctor(flags: PluginFlags): Promise<number> {
  const { pluginDoctor } = await import("../../core/plugins/manage.ts");
  const { withPluginsLock } = await import("../../core/plugins/state.ts");
  const findings = await withPluginsLock(async () => pluginDoctor(process.cwd(), flags.fix === true));
  if (flags.json) await json(findings);
  else if (findings.length === 0) await writeStdout("Plugins: no problems found.\n");
  else await writeStdout(`${findings.map((finding) => `${finding.fixed ? "fixed  " : "problem"}  ${finding.plugin}: ${finding.problem}`).join("\n")}\n`);
  return findings.some((finding) => !finding.fixed) ? 1 : 0;
}

export async function runPluginPack(name: string, flags: PluginFlags): Promise<number> {
  const { packPlugin } = await import("../../core/plugins/manage.ts");
  const file = await packPlugin(name, flags.output, process.cwd());
  await writeStdout(`Wrote ${displayPath(file)}; install it with \`omp plugin install ${displayPath(file)}\` (no network needed).\n`);
  return 0;
}

export async function runMarketplaceAdd(source: string, flags: PluginFlags): Promise<number> {
  const { addMarketplace } = await import("../../core/plugins/marketplaces.ts");
  const { withPluginsLock } = await import("../../core/plugins/state.ts");
  const { record, catalog } = await withPluginsLock(() => addMarketplace(source, process.cwd()));
  if (flags.json) await json({ ...record, plugins: catalog.plugins.length, skipped: catalog.skipped });
  else {
    await writeStdout(`Added marketplace ${record.name} (${catalog.plugins.length} plugins). Install one with \`omp plugin install <plugin>@${record.name}\`.\n`);
    for (const skipped of catalog.skipped) writeFdQuietly(2, `omp: ${record.name}: plugin ${skipped.name} left out: ${skipped.reason}\n`);
  }
  return 0;
}

export async function runMarketplaceList(flags: PluginFlags): Promise<number> {
  const { readMarketplaces } = await import("../../core/plugins/state.ts");
  const { marketplaces } = readMarketplaces();
  if (flags.json) await json(marketplaces);
  else if (marketplaces.length === 0) await writeStdout("No marketplaces. Add one with `omp plugin marketplace add <owner/repo | git URL | folder | URL to marketplace.json>`.\n");
  else await writeStdout(`${marketplaces.map((record) => `${record.name}  ${record.sourceType}  ${record.sourceType === "local" ? displayPath(record.sourceUri) : record.sourceUri}`).join("\n")}\n`);
  return 0;
}

export async function runMarketplaceUpdate(name: string | undefined): Promise<number> {
  const { updateMarketplace } = await import("../../core/plugins/marketplaces.ts");
  const { readMarketplaces, withPluginsLock } = await import("../../core/plugins/state.ts");
  const names = name ? [name] : readMarketplaces().marketplaces.map((record) => record.name);
  for (const each of names) {
    const { catalog } = await withPluginsLock(() => updateMarketplace(each));
    await writeStdout(`Updated marketplace ${each} (${catalog.plugins.length} plugins).\n`);
  }
  return 0;
}

export async function runMarketplaceRemove(name: string, flags: PluginFlags): Promise<number> {
  const { describeRemoval, removeMarketplaceWithPlugins } = await import("../../core/plugins/remove-marketplace.ts");
  const { withPluginsLock } = await import("../../core/plugins/state.ts");
  const removal = await withPluginsLock(async () => removeMarketplaceWithPlugins(name, process.cwd()));
  if (flags.json) await json(removal);
  else await writeStdout(`${describeRemoval(removal, displayPath).join("\n")}\n`);
  return 0;
}
