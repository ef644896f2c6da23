import type { Tool } from "../tools/types.ts";
import type { Skill } from "./skills.ts";
import { skillToolSpec } from "./skill-tool-spec.ts" with { type: "macro" };
import { plural } from "../plural.ts";

/** Characters the skill list may take in the system prompt: about 2,500 tokens, whatever is installed. */
export const SKILLS_PROMPT_BUDGET = 10_000;
/** A description longer than this is cut in the list (the body has the rest). */
const DESCRIPTION_CHARS = 300;

const SPEC = skillToolSpec();

/** The `skill` tool over `skills`; its code (and zod) loads on the first call. */
export function skillTool(skills: readonly Skill[]): Tool {
  let implementation: ReturnType<Tool["load"]> | undefined;
  return { ...SPEC, load: () => (implementation ??= import("./skill-tool.ts").then((module) => module.createSkillTool(skills))) };
}

/**
 * The Skills section of the system prompt: each skill's name and description, within
 * SKILLS_PROMPT_BUDGET characters. Past it, names only while they fit, then how many were left
 * out, so a large collection never crowds out the task. `via` says how the model loads one: the
 * skill tool, or (when only the read tool is offered) reading the listed SKILL.md.
 */
export function skillsPromptSection(skills: readonly Skill[], via: "tool" | "read", budget = SKILLS_PROMPT_BUDGET): string {
  const listed = skills.filter((skill) => !skill.userOnly);
  if (listed.length === 0) return "";
  const how =
    via === "tool"
      ? "When a task matches a skill's description, call the skill tool with its name before starting, and follow the instructions it returns."
      : "When a task matches a skill's description, read its SKILL.md (the path given) before starting, and follow its instructions.";
  const lines: string[] = [];
  let used = 0;
  let index = 0;
  for (; index < listed.length; index++) {
    const skill = listed[index]!;
    const description = skill.description.length > DESCRIPTION_CHARS ? `${skill.description.slice(0, DESCRIPTION_CHARS - 3)}...` : skill.description;
    const line = `- ${skill.name}: ${description}${via === "read" ? ` (${skill.path})` : ""}`;
    if (used + line.length + 1 > budget) break;
    lines.push(line);
    used += line.length + 1;
  }
  const names: string[] = [];
  for (; index < listed.length && via === "tool"; index++) {
    const name = listed[index]!.name;
    if (used + name.length + 2 > budget * 1.2) break;
    names.push(name);
    used += name.length + 2;
  }
  if (names.length > 0) lines.push(`- also (no room for their descriptions): ${names.join(", ")}`);
  const left = listed.length - index;
  if (left > 0) lines.push(`- ${plural(left, "more skill", "more skills")} not listed to keep this prompt short; the user can invoke them with /skill:<name>.`);
  return `Skills: instructions for particular tasks, loaded when needed. ${how}\n<skills>\n${lines.join("\n")}\n</skills>`;
}
