import type { Command } from "commander";
import type { PluginFlags } from "../commands/plugin.ts";
import { collect } from "../options/option-values.ts";
import type { Run } from "../options/options.ts";

/** `omp plugin …`: the command tree; cli/commands/plugin.ts (loaded only when one runs) does the work. */
export function describePluginCommands(program: Command, run: Run): void {
  const load = () => import("../commands/plugin.ts");
  const plugin = program.command("plugin").description("install plugins: Claude Code marketplaces, npm packages, git repositories, folders and .tgz archives");
  const scope = "--scope <scope>";
  const scopeHelp = "user (default) or project (this repository's .omp/plugins)";
  plugin
    .command("install")
    .description("install name@marketplace, an npm spec (pkg, pkg@1.2, pkg[feat,…], pkg[*], pkg[]), a git URL, a folder or a .tgz")
    .argument("<targets...>", "what to install")
    .option(scope, scopeHelp)
    .option("--json", "print JSON")
    .action(run(async (targets: string[], flags: PluginFlags) => (await load()).runPluginInstall(targets, flags)));
  plugin
    .command("uninstall")
    .alias("remove")
    .description("remove an installed plugin")
    .argument("<target>", "name@marketplace or package name")
    .option(scope, scopeHelp)
    .action(run(async (target: string, flags: PluginFlags) => (await load()).runPluginUninstall(target, flags)));
  for (const [name, enabled] of [["enable", true], ["disable", false]] as const) {
    plugin
      .command(name)
      .description(`${name} an installed plugin (it is ${enabled ? "live" : "off"} from the next session)`)
      .argument("<target>", "name@marketplace or package name")
      .option(scope, scopeHelp)
      .action(run(async (target: string, flags: PluginFlags) => (await load()).runPluginEnable(target, enabled, flags)));
  }
  plugin
    .command("update")
    .alias("upgrade")
    .description("reinstall plugins from their marketplace's newest catalog or their source")
    .argument("[target]", "one plugin (default: all)")
    .option(scope, scopeHelp)
    .action(run(async (target: string | undefined, flags: PluginFlags) => (await load()).runPluginUpdate(target, flags)));
  plugin
    .command("list")
    .description("installed plugins, where from, and whether enabled")
    .option("--json", "print JSON")
    .action(run(async (flags: PluginFlags) => (await load()).runPluginList(flags)));
  plugin
    .command("discover")
    .description("plugins the added marketplaces offer")
    .argument("[marketplace]", "only this marketplace")
    .option("--json", "print JSON")
    .action(run(async (name: string | undefined, flags: PluginFlags) => (await load()).runPluginDiscover(name, flags)));
  plugin
    .command("link")
    .description("use a plugin folder in place (for developing it)")
    .argument("<path>", "the folder")
    .action(run(async (path: string) => (await load()).runPluginLink(path)));
  plugin
    .command("features")
    .description("show or change the features of an npm, git or local plugin")
    .argument("<name>", "package name")
    .option("--enable <features>", "comma-separated features to turn on")
    .option("--disable <features>", "comma-separated features to turn off")
    .option("--set <features>", "exactly these features (empty for none)")
    .option("--json", "print JSON")
    .action(run(async (name: string, flags: PluginFlags) => (await load()).runPluginFeatures(name, flags)));
  plugin
    .command("config")
    .description("show or set a plugin's settings")
    .argument("<name>", "package name")
    .option("--set <key=value>", "set a value (JSON or text); repeatable", collect)
    .option("--json", "print JSON")
    .action(run(async (name: string, flags: PluginFlags) => (await load()).runPluginConfig(name, flags)));
  plugin
    .command("doctor")
    .description("check plugin state against the disk")
    .option("--fix", "drop entries that point at nothing and leftovers of interrupted installs")
    .option("--json", "print JSON")
    .action(run(async (flags: PluginFlags) => (await load()).runPluginDoctor(flags)));
  plugin
    .command("pack")
    .description("write an installed plugin and what it needs to one .tgz, for `omp plugin install ./file.tgz` offline")
    .argument("<name>", "name@marketplace or package name")
    .option("-o, --output <file>", "where to write it (default: ./<name>-<version>.tgz)")
    .action(run(async (name: string, flags: PluginFlags) => (await load()).runPluginPack(name, flags)));

  const marketplace = plugin.command("marketplace").description("Claude Code-compatible plugin catalogs");
  marketplace
    .command("add")
    .description("add a marketplace: owner/repo, a git URL (https, ssh, file://), a folder, or a URL to a marketplace.json")
    .argument("<source>", "where it is")
    .option("--json", "print JSON")
    .action(run(async (source: string, flags: PluginFlags) => (await load()).runMarketplaceAdd(source, flags)));
  marketplace
    .command("list")
    .description("the added marketplaces")
    .option("--json", "print JSON")
    .action(run(async (flags: PluginFlags) => (await load()).runMarketplaceList(flags)));
  marketplace
    .command("update")
    .description("fetch the newest catalog of one marketplace, or of all")
    .argument("[name]", "the marketplace")
    .action(run(async (name: string | undefined) => (await load()).runMarketplaceUpdate(name)));
  marketplace
    .command("remove")
    .description("forget a marketplace and uninstall the plugins installed from it")
    .argument("<name>", "the marketplace")
    .option("--json", "print JSON")
    .action(run(async (name: string, flags: PluginFlags) => (await load()).runMarketplaceRemove(name, flags)));
}
