import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseAllowedTools } from "./allowed-tools.ts";
import { type Catalog, claimName } from "./catalog.ts";
import { isDirEntry } from "../fs/dir-entry.ts";
import { displayPath } from "../paths.ts";
import { firstParagraph, listDir, slugify } from "./files.ts";
import { parseFrontmatter, stringValue } from "./frontmatter.ts";
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
export function loadSkills(sources: readonly Source[], catalog: Catalog): Skill[] {
  const taken = new Map<string, Skill>();
  const skills: Skill[] = [];
  for (const source of sources) {
    const root = join(source.root, "skills");
    for (const entry of listDir(root)) {
      if (entry.name.startsWith(".")) continue;
      const dir = join(root, entry.name);
      if (!isDirEntry(root, entry)) {
        if (entry.name.toLowerCase().endsWith(".md")) {
          catalog.add({ kind: "skill", name: slugify(entry.name.slice(0, -3)), status: "skipped", path: dir, source, reason: `a skill is a folder with a SKILL.md: move it to skills/${entry.name.slice(0, -3)}/SKILL.md` });
        }
        continue;
      }
      const found = readSkillFile(dir);
      if (!found || "error" in found) {
        const reason = found ? `cannot be read (${found.error})` : "no SKILL.md in this folder";
        catalog.add({ kind: "skill", name: slugify(entry.name), status: "skipped", path: found?.path ?? dir, source, reason });
        continue;
      }
      const file = found.path;
      const read = readSkill(found.text, dir, entry.name, source, catalog, file);
      if (!read) continue;
      const { skill, warning, note } = read;
      const owner = claimName(taken, skill);
      const entryOf = { kind: "skill", name: skill.name, path: file, source, description: skill.description, warning, note };
      if (owner) {
        catalog.add({ ...entryOf, status: "shadowed", reason: `shadowed by ${displayPath(owner.path)}` });
        continue;
      }
      catalog.add({ ...entryOf, status: "loaded" });
      skills.push(skill);
    }
  }
  return skills;
}

/** The folder's SKILL.md and its text, tried by reading (one system call when it is there). */
function readSkillFile(dir: string): { path: string; text: string } | { path: string; error: string } | undefined {
  for (const name of SKILL_FILES) {
    const path = join(dir, name);
    try {
      return { path, text: readFileSync(path, "utf8") };
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== "ENOENT" && code !== "ENOTDIR") return { path, error: code ?? String(error) };
    }
  }
  return undefined;
}

function readSkill(text: string, dir: string, folder: string, source: Source, catalog: Catalog, file: string): { skill: Skill; warning?: string; note?: string } | undefined {
  const { data, body, problem } = parseFrontmatter(text);
  const rawName = stringValue(data.name)?.trim() || folder;
  let name = slugify(rawName);
  if (!name) name = slugify(folder);
  const note = rawName !== name ? `name ${JSON.stringify(rawName)} used as ${name}` : undefined;
  const base = source.namespace ? `${source.namespace}:${name}` : name;
  const description = (stringValue(data.description) ?? "").trim() || firstParagraph(body);
  if (!name || !description) {
    catalog.add({ kind: "skill", name: base || folder, status: "skipped", path: file, source, reason: [problem, "no description in the frontmatter and no text in the body"].filter(Boolean).join("; ") });
    return undefined;
  }
  const skill: Skill = {
    name: base,
    description: description.replace(/\s+/g, " "),
    path: file,
    dir,
    source,
    allowedTools: parseAllowedTools(data["allowed-tools"] ?? data.allowedTools),
    userOnly: data["disable-model-invocation"] === true || data.hide === true,
  };
  return { skill, warning: problem, note };
}

/** The skill's instructions: SKILL.md without its frontmatter, read now (it may have changed). */
export function readSkillBody(skill: Skill): string {
  return parseFrontmatter(readFileSync(skill.path, "utf8")).body.trim();
}
