import { isAbsolute, relative, resolve } from "node:path";
import { errorResult, textResult } from "../tools/format.ts";
import { registerUrlReader } from "../tools/internal-urls.ts";
import type { ToolContext, ToolResult } from "../tools/types.ts";
import type { ReadDetails } from "../tools/read-details.ts";
import type { ReadRange } from "../tools/internal-urls.ts";
import type { Skill } from "./skills.ts";

/**
 * `skill://<name>` in read (the original omp's scheme): the skill's instructions, paged like a
 * file; `skill://<name>/<path>` a file of its folder; `skill://` the skills the model may use.
 * A user-only skill (`disable-model-invocation`) is not the model's to read by name.
 */
export function registerSkillUrls(skills: readonly Skill[]): () => void {
  const usable = skills.filter((skill) => !skill.userOnly);
  return registerUrlReader("skill", (url, range, context) => readSkillUrl(usable, url, range, context));
}

async function readSkillUrl(skills: readonly Skill[], url: string, range: ReadRange, context: ToolContext): Promise<ToolResult<ReadDetails>> {
  const rest = url.replace(/^skill:\/\//i, "").replace(/^\/+/, "");
  if (rest === "") return textResult(skills.length === 0 ? "No skills are loaded." : skills.map((skill) => `skill://${skill.name} — ${skill.description}`).join("\n"));
  const slash = rest.indexOf("/");
  const name = decodeURIComponent(slash === -1 ? rest : rest.slice(0, slash));
  const inner = slash === -1 ? "" : decodeURIComponent(rest.slice(slash + 1));
  const skill = skills.find((s) => s.name === name) ?? skills.find((s) => s.name.endsWith(`:${name}`));
  if (!skill) return errorResult(`There is no skill://${name}. Skills: ${skills.map((s) => s.name).slice(0, 100).join(", ") || "none"}.`);
  const { readTextOf } = await import("../tools/read.ts");
  if (inner === "") {
    const { readSkillBody } = await import("./skills.ts");
    return readTextOf(`skill://${skill.name}`, readSkillBody(skill), range);
  }
  const path = resolve(skill.dir, inner);
  const within = relative(skill.dir, path);
  if (within.startsWith("..") || isAbsolute(within)) return errorResult(`skill://${skill.name}/${inner} leads outside the skill's folder; give a path inside it.`);
  // The folder's files are read as files are: the sandbox policy and every format read knows.
  const { readTool } = await import("../tools/read.ts");
  return readTool.execute({ path, offset: range.offset, limit: range.limit }, context);
}
