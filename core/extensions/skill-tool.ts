import { relative } from "node:path";
import { folderFiles } from "../fs/folder-files.ts";
import { z } from "zod";
import { errorResult, textResult } from "../tools/format.ts";
import type { ToolDefinition } from "../tools/types.ts";
import { slugify } from "./files.ts";
import { type Skill, readSkillBody } from "./skills.ts";

const schema = z.object({
  name: z.string().describe("The skill's name, as listed under Skills in the system prompt"),
});

/** Files of a skill's folder listed with its body, so the model knows what it can read next. */
const MAX_FILES = 40;

/**
 * The `skill` tool: the model loads a skill's instructions when a task calls for them. A tool
 * rather than the read tool on the SKILL.md path, because it works whatever tools the session
 * allows, resolves a name (no paths in the system prompt, so the list costs fewer tokens), leaves
 * out the frontmatter, and hands over the folder with the files the body refers to.
 */
export function createSkillTool(skills: readonly Skill[]): ToolDefinition<typeof schema> {
  return {
    name: "skill",
    description:
      "Load a skill: its instructions and the folder of its reference files. When the user's task matches a skill listed under Skills in the system prompt, call this first with the skill's name and follow what it returns. Files it mentions are read with the read tool, relative to the skill's folder.",
    schema,
    effect: "read",
    async execute(input) {
      const wanted = slugify(input.name.replace(/^\/?skill:/i, ""));
      const skill = skills.find((s) => s.name === wanted) ?? skills.find((s) => s.name.endsWith(`:${wanted}`));
      if (!skill) {
        const names = skills.map((s) => s.name);
        return errorResult(`There is no skill named ${JSON.stringify(input.name)}. Skills: ${names.slice(0, 100).join(", ")}${names.length > 100 ? `, and ${names.length - 100} more` : ""}.`);
      }
      const files = folderFiles(skill.dir, MAX_FILES, 2).filter((path) => path !== relative(skill.dir, skill.path));
      const lines = [
        `<skill name="${skill.name}" path="${skill.path}">`,
        readSkillBody(skill),
        "</skill>",
        `The skill's folder is ${skill.dir}; paths in the instructions are relative to it.`,
      ];
      if (files.length > 0) lines.push(`Files in the folder: ${files.join(", ")}${files.length >= MAX_FILES ? ", ..." : ""}`);
      return textResult(lines.join("\n"), { skill: skill.name, path: skill.path });
    },
  };
}

/** For the bundle-time spec (skill-tool-spec.ts): the definition with no skills. */
export const skillToolDefinition = createSkillTool([]);
