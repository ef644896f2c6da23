import type { Tool } from "../tools/types.ts";
import type { Extensions } from "./extensions.ts";
import { skillTool, skillsPromptSection } from "./skills-prompt.ts";
import { registerSkillUrls } from "./skill-urls.ts";

/**
 * What skills add to a session, decided once at its start (the system prompt and the tools stay
 * the same for its whole life): the skill tool when `withTool` and some skill is the model's to
 * use, and the Skills section of the system prompt. Without the tool (`--tools` leaving it out)
 * the section points at the SKILL.md files for the read tool, when that is offered.
 */
export function skillsForSession(extensions: Extensions, tools: readonly Tool[], withTool: boolean): { tools: Tool[]; promptSection: string } {
  const skills = extensions.skills;
  if (!skills.some((skill) => !skill.userOnly)) return { tools: [...tools], promptSection: "" };
  registerSkillUrls(skills);
  if (withTool) return { tools: [...tools, skillTool(skills)], promptSection: skillsPromptSection(skills, "tool") };
  if (tools.some((tool) => tool.name === "read")) return { tools: [...tools], promptSection: skillsPromptSection(skills, "read") };
  return { tools: [...tools], promptSection: "" };
}
