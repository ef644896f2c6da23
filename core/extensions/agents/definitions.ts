import { basename } from "node:path";
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { parserHazard } from "../../config/yaml-file.ts";
import { displayPath } from "../../paths.ts";
import type { AgentDefinition } from "./builtin.ts";

/**
 * An agent file's frontmatter as real files write it: `tools` as a comma string or a YAML list,
 * `color` and other keys Claude Code knows but omp does not use are tolerated.
 */
const Frontmatter = z.looseObject({
  name: z.string().trim().min(1).optional(),
  description: z.string().trim().min(1),
  tools: z.union([z.string(), z.array(z.string())]).optional(),
  model: z.string().trim().min(1).optional(),
});

/** `---\nyaml\n---\nbody`: the YAML and the body; no frontmatter gives undefined. */
function splitFrontmatter(text: string): { yaml: string; body: string } | undefined {
  const match = /^\uFEFF?---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(text);
  return match ? { yaml: match[1]!, body: text.slice(match[0].length) } : undefined;
}

/** One agent file, or the problem with it. */
export function parseAgentFile(path: string, text: string): AgentDefinition | { problem: string } {
  const where = displayPath(path);
  const split = splitFrontmatter(text);
  if (!split) return { problem: `${where}: no frontmatter (--- name, description ---); skipped` };
  const hazard = parserHazard(split.yaml);
  if (hazard) return { problem: `${where}: the frontmatter's YAML is refused: ${hazard}; skipped` };
  let data: unknown;
  try {
    data = parseYaml(split.yaml) ?? {};
  } catch (error) {
    return { problem: `${where}: bad YAML in the frontmatter (${(error as Error).message.split("\n")[0]}); skipped` };
  }
  const parsed = Frontmatter.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return { problem: `${where}: frontmatter ${issue.path.join(".") || "value"}: ${issue.message}; skipped` };
  }
  const { name, description, tools, model } = parsed.data;
  const list = typeof tools === "string" ? tools.split(",") : tools;
  const toolNames = list?.map((tool) => tool.trim()).filter(Boolean);
  return {
    name: name ?? basename(path, ".md"),
    description,
    ...(toolNames && toolNames.length > 0 ? { tools: toolNames } : {}),
    ...(model ? { model } : {}),
    systemPrompt: split.body.trim(),
    file: path,
  };
}
