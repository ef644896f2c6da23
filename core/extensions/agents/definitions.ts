import { basename } from "node:path";
import { z } from "zod";
import { parserHazard } from "../../config/yaml-file.ts";
import { displayPath } from "../../paths.ts";
import { parseFrontmatter } from "../frontmatter.ts";
import type { AgentDefinition } from "./builtin.ts";
import { describeZodError } from "../../errors/zod-issues.ts";

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

/** One agent file, or the problem with it. */
export function parseAgentFile(path: string, text: string): AgentDefinition | { problem: string } {
  const where = displayPath(path);
  if (!/^\uFEFF?---[ \t]*\r?\n/.test(text)) return { problem: `${where}: no frontmatter (--- name, description ---); skipped` };
  // Project agent files are untrusted text: a pathological nesting is refused before any YAML parser sees it.
  const hazard = parserHazard(text.slice(0, Math.max(0, text.indexOf("\n---", 3))));
  if (hazard) return { problem: `${where}: the frontmatter's YAML is refused: ${hazard}; skipped` };
  // Broken YAML is read line by line, as for skills and commands (multi-line descriptions with <example> blocks).
  const { data, body } = parseFrontmatter(text);
  const parsed = Frontmatter.safeParse(data);
  if (!parsed.success) {
    return { problem: `${where}: frontmatter ${describeZodError(parsed.error, "value")}; skipped` };
  }
  const { name, description, tools, model } = parsed.data;
  const list = typeof tools === "string" ? tools.split(",") : tools;
  const toolNames = list?.map((tool) => tool.trim()).filter(Boolean);
  return {
    name: name ?? basename(path, ".md"),
    description,
    ...(toolNames && toolNames.length > 0 ? { tools: toolNames } : {}),
    ...(model ? { model } : {}),
    systemPrompt: body.trim(),
    file: path,
  };
}
