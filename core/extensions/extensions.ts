import { Catalog, type CatalogEntry } from "./catalog.ts";
import { type MarkdownCommand, loadCommands } from "./commands.ts";
import { SkillCache } from "./skill-cache.ts";
import { type Skill, loadSkills } from "./skills.ts";
import { type Source, type SourceOptions, discoverSources } from "./sources.ts";

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

  constructor(private readonly options: SourceOptions) {}

  get cwd(): string {
    return this.options.cwd;
  }

  get sources(): Source[] {
    return (this.sourceList ??= discoverSources(this.options));
  }

  get skills(): Skill[] {
    return (this.skillList ??= loadSkills(this.sources, this.catalog, this.sources.length > 0 ? SkillCache.open(this.options.env ?? process.env) : undefined));
  }

  get commands(): MarkdownCommand[] {
    return (this.commandList ??= loadCommands(this.sources, this.catalog));
  }

  /** Every kind loaded, then everything found: loaded, shadowed and skipped, with files and reasons. */
  listExtensions(): CatalogEntry[] {
    void this.skills;
    void this.commands;
    return this.catalog.entries;
  }
}
