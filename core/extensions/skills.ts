import { type Dirent, type Stats, readFileSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { parseAllowedTools } from "./allowed-tools.ts";
import { type Catalog, claimName } from "./catalog.ts";
import { isDirEntry } from "../fs/dir-entry.ts";
import { displayPath } from "../paths.ts";
import { firstParagraph, listDir, slugify } from "./files.ts";
import { parseFrontmatter, stringValue } from "./frontmatter.ts";
import { type SkillCache, type SkillHead } from "./skill-cache.ts";
import type { Source } from "./sources.ts";

/** An Agent Skill: a folder with a SKILL.md; the model sees name and description, the body on use. */
export interface Skill {
  name: string;
  description: string;
  /** The SKILL.md. */
  path: string;
  /** The skill's folder: its other files (references, scripts) are relative to it. */
  dir: string;
  source: Source;
  allowedTools: string[];
  /** `disable-model-invocation: true`: only the user invokes it (/skill:name); not listed to the model. */
  userOnly: boolean;
}

const SKILL_FILES = ["SKILL.md", "skill.md", "Skill.md"];

/**
 * The skills of every source, `<root>/skills/<folder>/SKILL.md`, first wins by name. Sloppy files
 * load: names with spaces are slugified, a missing name comes from the folder, a missing
 * description from the body's first paragraph. A file that cannot be used is recorded in the
 * catalog with the reason, and the rest still load.
 */
export function loadSkills(sources: readonly Source[], catalog: Catalog, cache?: SkillCache): Skill[] {
  const taken = new Map<string, Skill>();
  const skills: Skill[] = [];
  for (const source of sources) for (const listed of source.skillDirs ?? [join(source.root, "skills")]) {
    const root = /(?:^|\/)skill\.md$/i.test(listed) ? dirname(listed) : listed;
    // A listed path may be one skill's folder (marketplace entries and plugin.json list them so), or a folder of skills.
    const entries: { name: string; dir: string; single: boolean; entry?: Dirent }[] = skillFile(root) ? [{ name: basename(root), dir: dirname(root), single: true }] : listDir(root).map((entry) => ({ name: entry.name, dir: root, single: false, entry }));
    for (const item of entries) {
      const entry = { name: item.name };
      if (entry.name.startsWith(".")) continue;
      const dir = join(item.dir, entry.name);
      if (!item.single && !isDirEntry(root, item.entry!)) {
        if (entry.name.toLowerCase().endsWith(".md")) {
          catalog.add({ kind: "skill", name: slugify(entry.name.slice(0, -3)), status: "skipped", path: dir, source, reason: `a skill is a folder with a SKILL.md: move it to skills/${entry.name.slice(0, -3)}/SKILL.md` });
        }
        continue;
      }
      const found = skillFile(dir);
      if (!found) {
        catalog.add({ kind: "skill", name: slugify(entry.name), status: "skipped", path: dir, source, reason: "no SKILL.md in this folder" });
        continue;
      }
      const file = found.path;
      const head = skillHead(found, entry.name, cache);
      const name = "skip" in head ? slugify(entry.name) : source.namespace ? `${source.namespace}:${head.name}` : head.name;
      if ("skip" in head) {
        catalog.add({ kind: "skill", name, status: "skipped", path: file, source, reason: head.skip });
        continue;
      }
      const skill: Skill = { name, description: head.description, path: file, dir, source, allowedTools: head.allowedTools, userOnly: head.userOnly };
      const owner = claimName(taken, skill);
      const entryOf = { kind: "skill", name, path: file, source, description: skill.description, warning: head.warning, note: head.note };
      if (owner) {
        catalog.add({ ...entryOf, status: "shadowed", reason: `shadowed by ${displayPath(owner.path)}` });
        continue;
      }
      catalog.add({ ...entryOf, status: "loaded" });
      skills.push(skill);
    }
  }
  cache?.save();
  return skills;
}

/** The folder's SKILL.md (any case omp knows) and its size and mtime. */
function skillFile(dir: string): { path: string; stat: Stats } | undefined {
  for (const name of SKILL_FILES) {
    const path = join(dir, name);
    try {
      const stat = statSync(path, { throwIfNoEntry: false });
      if (stat?.isFile()) return { path, stat };
    } catch {
      // Not a folder we may look into: no skill here.
    }
  }
  return undefined;
}

/** What the file says about its skill: from the cache when the file is unchanged, else read now. */
function skillHead({ path, stat }: { path: string; stat: Stats }, folder: string, cache: SkillCache | undefined): SkillHead {
  const cached = cache?.get(path, stat);
  if (cached) return cached;
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    return { skip: `cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})` };
  }
  const head = readSkillHead(text, folder);
  cache?.set(path, stat, head);
  return head;
}

function readSkillHead(text: string, folder: string): SkillHead {
  const { data, body, problem } = parseFrontmatter(text);
  const rawName = stringValue(data.name)?.trim() || folder;
  const name = slugify(rawName) || slugify(folder);
  const description = ((stringValue(data.description) ?? "").trim() || firstParagraph(body)).replace(/\s+/g, " ");
  if (!name || !description) return { skip: [problem, "no description in the frontmatter and no text in the body"].filter(Boolean).join("; ") };
  return {
    name,
    description,
    allowedTools: parseAllowedTools(data["allowed-tools"] ?? data.allowedTools),
    userOnly: data["disable-model-invocation"] === true || data.hide === true,
    ...(problem ? { warning: problem } : {}),
    ...(rawName !== name ? { note: `name ${JSON.stringify(rawName)} used as ${name}` } : {}),
  };
}

/** The skill's instructions: SKILL.md without its frontmatter, read now (it may have changed). */
export function readSkillBody(skill: Skill): string {
  return parseFrontmatter(readFileSync(skill.path, "utf8")).body.trim();
}
