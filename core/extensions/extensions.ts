import { basename, dirname, resolve, sep } from "node:path";
import { displayPath, expandHome, homeDir } from "../paths.ts";
import { Catalog, type CatalogEntry } from "./catalog.ts";
import { type MarkdownCommand, loadCommands } from "./commands.ts";
import { type CommandProvider, type ProvidedCommand, catalogEntry, resolveProvided } from "./provided.ts";
import { subagentDefinitions } from "./session.ts";
import { SkillCache } from "./skill-cache.ts";
import { type Skill, loadSkills } from "./skills.ts";
import { type Source, type SourceOptions, discoverSources, pluginSources } from "./sources.ts";
import type { LoadedCommand } from "./ts/load.ts";
import { enabledPlugins } from "../plugins/enabled.ts";

/**
 * The extensions of a session in one folder: its sources, and each kind loaded from them on first
 * use, so a headless run that sends no slash command never reads a command file. Other kinds
 * (agents, hooks, TypeScript extensions) load from the same `sources` and record what they found
 * in the same `catalog`.
 */
export class Extensions {
  readonly catalog = new Catalog();
  private sourceList: Source[] | undefined;
  private skillList: Skill[] | undefined;
  private commandList: MarkdownCommand[] | undefined;
  private readonly listers: (() => void)[] = [];
  /**
   * Slash commands TypeScript extensions registered: invoked, completed and offered like the
   * markdown commands (a markdown command of the same name wins, as the user's text).
   */
  readonly codeCommands: LoadedCommand[] = [];
  /** Sources of commands that are not files (MCP servers' prompts), asked each time. */
  private readonly providers: CommandProvider[] = [];

  /**
   * Why a file may not be attached with `@path` (a settings deny rule for reading it, which holds
   * for mentions as for the read tool), or undefined. Set when the settings are read.
   */
  readDenied: (fullPath: string) => string | undefined = () => undefined;

  /** For `@path` mentions: files the deny rules leave readable. */
  readonly mayAttach = (fullPath: string): boolean => this.readDenied(fullPath) === undefined;

  constructor(private readonly options: SourceOptions) {}

  get cwd(): string {
    return this.options.cwd;
  }

  get sources(): Source[] {
    // Installed plugins (omp plugin) come after the user's and the project's folders, as `<plugin>:<name>`.
    return (this.sourceList ??= discoverSources({ ...this.options, extra: [...(this.options.extra ?? []), ...pluginSources(enabledPlugins(this.options.cwd))] }));
  }

  get skills(): Skill[] {
    return (this.skillList ??= loadSkills(this.sources, this.catalog, this.sources.length > 0 ? SkillCache.open(this.options.env ?? process.env) : undefined));
  }

  get commands(): MarkdownCommand[] {
    return (this.commandList ??= loadCommands(this.sources, this.catalog));
  }

  addProvider(provider: CommandProvider): void {
    this.providers.push(provider);
  }

  /** The providers' commands in use now: a markdown or extension command of the same name wins. */
  get providedCommands(): ProvidedCommand[] {
    return this.resolveProvided().commands;
  }

  private resolveProvided() {
    if (this.providers.length === 0) return { commands: [], shadowed: [] };
    const taken = new Map<string, string>([
      ...this.commands.map((c): [string, string] => [c.name.toLowerCase(), displayPath(c.path)]),
      ...this.codeCommands.map((c): [string, string] => [c.name.toLowerCase(), displayPath(c.file)]),
    ]);
    return resolveProvided(this.providers, taken);
  }

  /** The provider whose namespace `name` is in (`mcp__…`), to wait for a command it does not know yet. */
  providerOwning(name: string): CommandProvider | undefined {
    return this.providers.find((provider) => provider.owns(name));
  }

  /** Waits until every provider knows its commands, for a listing that shows them all. */
  async settleProviders(): Promise<void> {
    await Promise.all(this.providers.map((provider) => provider.settled()));
  }

  /**
   * A kind that loads lazily in a run (hooks parse at their first event) records its entries
   * when the listing is first asked for, through this.
   */
  whenListed(record: () => void): void {
    this.listers.push(record);
  }

  /** Every kind loaded, then everything found: loaded, shadowed and skipped, with files and reasons. */
  listExtensions(): CatalogEntry[] {
    void this.skills;
    void this.commands;
    this.listAgents();
    for (const record of this.listers.splice(0)) record();
    // Provided commands come and go (a server starts, its list changes): listed as they are now.
    const { commands, shadowed } = this.resolveProvided();
    return [...this.catalog.entries, ...commands.map(catalogEntry), ...shadowed];
  }

  private agentsListed = false;

  /**
   * Subagent definitions (core/extensions/agents, which the task tool loads for itself), recorded
   * for the listing: each with its file, and the files that could not be used with why.
   */
  private listAgents(): void {
    if (this.agentsListed) return;
    this.agentsListed = true;
    const env = this.options.env ?? process.env;
    const home = homeDir();
    const sourceOf = (file: string): Source => {
      const kind = file.startsWith(resolve(this.cwd) + sep) && !file.startsWith(home + sep + ".") ? "project" : "user";
      return { kind, root: dirname(dirname(file)), trusted: kind === "user", label: displayPath(dirname(file)) };
    };
    const problems: string[] = [];
    for (const agent of subagentDefinitions(this.cwd, env, (line) => problems.push(line))) {
      const source: Source = agent.file ? sourceOf(agent.file) : { kind: "builtin", root: "", trusted: true, label: "built in" };
      this.catalog.entries.push({ kind: "agent", name: agent.name, status: "loaded", path: agent.file ?? "(built in)", source, description: agent.description });
    }
    for (const problem of problems) {
      const [, file = "", reason = problem] = /^(.+?\.md): (.*?)(?:; skipped)?$/.exec(problem) ?? [];
      const path = expandHome(file);
      this.catalog.entries.push({ kind: "agent", name: basename(path, ".md"), status: "skipped", path, source: sourceOf(path), reason });
    }
  }
}
