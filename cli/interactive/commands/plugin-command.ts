import { describeError } from "../../../core/errors/omp-error.ts";
import { displayPath } from "../../../core/paths.ts";
import type { Scope } from "../../../core/plugins/install.ts";
import type { AnyInstall } from "../../../core/plugins/service.ts";
import type { CommandHost, SlashCommand } from "./commands.ts";
import { textBlock } from "../render/blocks.ts";

/**
 * `/plugin` (also `/plugins`, `/marketplace`): the same operations as `omp plugin`, through the
 * same core service, so a plugin installed here is the one the CLI lists. With no arguments it
 * opens a browser: marketplaces' offers to install, installed plugins to enable, disable or remove.
 * The plugin modules (zod, tar) load only when the command runs.
 */
const service = () => import("../../../core/plugins/service.ts");

function installed(host: CommandHost, result: AnyInstall): void {
  const name = result.kind === "marketplace" ? `${result.id} ${result.record.version} (${result.scope})` : `${result.name} ${result.version}`;
  host.notice("success", `Installed ${name}; it is live from the next session (/new).`);
  if (result.runs.length > 0) host.notice("warning", `It will run: ${result.runs.join("; ")}`);
}

function lines(host: CommandHost, title: string, rows: string[]): void {
  host.add(textBlock(host.view, (theme) => [[{ text: title, style: theme.fg("accent", "bold") }], ...rows.map((row) => [{ text: `  ${row}`, style: theme.fg("muted") }])]));
}

async function browse(host: CommandHost): Promise<void> {
  const what = await host.pick("Plugins", [
    { label: "Browse marketplaces", detail: "install a plugin", value: "browse" },
    { label: "Installed plugins", detail: "enable, disable, uninstall", value: "installed" },
  ], false);
  const { discover, install, listPlugins, setEnabled, uninstall } = await service();
  if (what === "browse") {
    const offers = discover(host.cwd).filter((offer) => !offer.unavailable);
    if (offers.length === 0) {
      host.notice("info", "No marketplace offers a plugin yet: /plugin marketplace add <owner/repo | git URL | folder>.");
      return;
    }
    const id = await host.pick(
      "Install",
      offers.map((offer) => ({ label: `${offer.name}@${offer.marketplace}`, detail: `${offer.installed ? "installed · " : ""}${offer.description ?? offer.source}`, value: `${offer.name}@${offer.marketplace}` })),
    );
    if (!id) return;
    host.setActivity(`Installing ${id}`);
    installed(host, await install(id, "user", host.cwd).finally(() => host.setActivity(undefined)));
  } else if (what === "installed") {
    const plugins = listPlugins(host.cwd);
    if (plugins.length === 0) {
      host.notice("info", "No plugins installed.");
      return;
    }
    const plugin = await host.pick("Installed", plugins.map((item) => ({ label: item.id, detail: `${item.enabled ? "enabled" : "disabled"} · ${item.kind === "claude" ? "Claude Code · " : ""}${item.scope} · ${item.version}`, value: item })));
    if (!plugin) return;
    const action = await host.pick(plugin.id, [
      { label: plugin.enabled ? "Disable" : "Enable", value: "toggle" },
      { label: "Uninstall", value: "uninstall" },
    ], false);
    if (action === "toggle") host.notice("success", `${plugin.enabled ? "Disabled" : "Enabled"} ${await setEnabled(plugin.id, !plugin.enabled, plugin.scope, host.cwd)} from the next session.`);
    if (action === "uninstall") host.notice("success", `Uninstalled ${await uninstall(plugin.id, plugin.scope, host.cwd)}.`);
  }
}

/** The text form: `/plugin install x@y --scope project`, `/plugin marketplace add ./m`, ... */
async function runWords(host: CommandHost, words: string[]): Promise<void> {
  const scopeAt = words.indexOf("--scope");
  const scope = scopeAt === -1 ? undefined : (words.splice(scopeAt, 2)[1] as Scope);
  if (scope !== undefined && scope !== "user" && scope !== "project") throw new Error("--scope is user or project");
  const [verb, ...rest] = words;
  const svc = await service();
  switch (verb) {
    case "install":
      for (const target of rest) {
        host.setActivity(`Installing ${target}`);
        installed(host, await svc.install(target, scope ?? "user", host.cwd).finally(() => host.setActivity(undefined)));
      }
      return;
    case "uninstall":
    case "remove":
      host.notice("success", `Uninstalled ${await svc.uninstall(rest[0] ?? "", scope, host.cwd)}.`);
      return;
    case "enable":
    case "disable":
      host.notice("success", `${verb === "enable" ? "Enabled" : "Disabled"} ${await svc.setEnabled(rest[0] ?? "", verb === "enable", scope, host.cwd)} from the next session.`);
      return;
    case "list":
      lines(host, "Plugins", svc.listPlugins(host.cwd).map((item) => `${item.enabled ? "enabled " : "disabled"} ${item.id} ${item.version} ${item.scope}`));
      return;
    case "discover":
      lines(host, "Offered", svc.discover(host.cwd, rest[0]).map((offer) => `${offer.installed ? "* " : ""}${offer.name}@${offer.marketplace}${offer.unavailable ? ` (cannot be installed: ${offer.unavailable})` : offer.description ? ` — ${offer.description}` : ""}`));
      return;
    case "update":
    case "upgrade":
      for (const result of await svc.update(rest[0], scope, host.cwd)) installed(host, result);
      return;
    case "marketplace":
      return runMarketplace(host, rest);
    default:
      throw new Error(`unknown /plugin action "${verb}": install, uninstall, enable, disable, list, discover, update, marketplace add|list|update|remove`);
  }
}

async function runMarketplace(host: CommandHost, [verb, arg]: string[]): Promise<void> {
  const markets = await import("../../../core/plugins/marketplaces.ts");
  const { readMarketplaces, withPluginsLock } = await import("../../../core/plugins/state.ts");
  if (verb === "add" && arg) {
    const { record, catalog } = await withPluginsLock(() => markets.addMarketplace(arg, host.cwd));
    host.notice("success", `Added marketplace ${record.name} (${catalog.plugins.length} plugins).`);
  } else if (verb === "remove" && arg) {
    const { describeRemoval, removeMarketplaceWithPlugins } = await import("../../../core/plugins/remove-marketplace.ts");
    const removal = await withPluginsLock(async () => removeMarketplaceWithPlugins(arg, host.cwd));
    const [summary, ...project] = describeRemoval(removal, displayPath);
    host.notice("success", summary!);
    for (const line of project) host.notice("warning", line.trim());
  } else if (verb === "update") {
    for (const name of arg ? [arg] : readMarketplaces().marketplaces.map((record) => record.name)) await withPluginsLock(() => markets.updateMarketplace(name));
    host.notice("success", "Marketplaces updated.");
  } else {
    lines(host, "Marketplaces", readMarketplaces().marketplaces.map((record) => `${record.name}  ${record.sourceType}  ${record.sourceUri}`));
  }
}

export const pluginCommand: SlashCommand = {
  name: "plugin",
  description: "browse marketplaces, install, enable and disable plugins",
  args: "[install|uninstall|enable|disable|list|discover|update|marketplace …]",
  async run(host, args) {
    try {
      const words = args.split(/\s+/).filter(Boolean);
      if (words.length === 0) await browse(host);
      else await runWords(host, words);
    } catch (error) {
      host.notice("error", describeError(error));
    }
  },
};
