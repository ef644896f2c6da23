import { z } from "zod";
import { type FrontmatterValue, parseFrontmatter } from "../extensions/frontmatter.ts";

import { INTERRUPT_MODES, type InterruptMode } from "./interrupt-mode.ts";

/** Where a rule file was found: omp's own folders, or another agent's (Claude Code, Cursor, Windsurf, Cline). */
export type RuleOrigin = "project" | "user" | "claude-project" | "claude-user" | "cursor-project" | "cursor-user" | "windsurf-project" | "windsurf-user" | "cline";

/** One rule file, normalised the way the original omp's providers do (rulebook-matching-pipeline.md). */
export interface Rule {
  /** The file name without `.md`/`.mdc`. */
  name: string;
  path: string;
  origin: RuleOrigin;
  /** The Markdown body: what the model is given. */
  content: string;
  description?: string;
  globs?: string[];
  alwaysApply?: boolean;
  /** Regex alternatives (TTSR); `ttsr_trigger`/`ttsrTrigger` are the older names. */
  condition?: string[];
  /** ast-grep patterns (OR'd), matched on the code an edit or write call introduces. */
  astCondition?: string[];
  scope?: string[];
  interruptMode?: InterruptMode;
  /** What was wrong with the file's frontmatter; the rule still loads with what could be read. */
  problem?: string;
}

/** A single string is a list of one; real files write lists either way, scopes comma-separated too. */
const list = (split: boolean) =>
  z.preprocess((value) => {
    if (typeof value === "string") return split ? value.split(",").map((item) => item.trim()).filter(Boolean) : value.trim() === "" ? [] : [value];
    return Array.isArray(value) ? value.map(String).filter((item) => item.trim() !== "") : undefined;
  }, z.array(z.string()).optional());

const flag = z.preprocess((value) => (value === true || value === "true" ? true : value === false || value === "false" ? false : undefined), z.boolean().optional());
const text = z.preprocess((value) => (typeof value === "string" && value.trim() !== "" ? value : undefined), z.string().optional());

/** The rule frontmatter of the original omp, plus Claude Code's `paths` (its name for globs); unknown keys are ignored. */
export const RuleFrontmatter = z.object({
  description: text,
  condition: list(false),
  ttsr_trigger: list(false),
  ttsrTrigger: list(false),
  astCondition: list(false),
  scope: list(true),
  globs: list(true),
  paths: list(true),
  alwaysApply: flag,
  interruptMode: z.preprocess((value) => (typeof value === "string" && (INTERRUPT_MODES as readonly string[]).includes(value) ? value : undefined), z.enum(INTERRUPT_MODES).optional()),
});

/** The rule a file's text holds; never throws (a bad field is dropped and named in `problem`). */
export function parseRule(name: string, path: string, origin: RuleOrigin, source: string): Rule {
  const { data, body, problem } = parseFrontmatter(source);
  const fields = RuleFrontmatter.parse(data as Record<string, FrontmatterValue>);
  const problems = [problem];
  const interrupt = data.interruptMode;
  if (interrupt !== undefined && fields.interruptMode === undefined) problems.push(`interruptMode ${JSON.stringify(interrupt)} is not one of ${INTERRUPT_MODES.join(", ")}`);
  const condition = fields.condition ?? fields.ttsr_trigger ?? fields.ttsrTrigger;
  const globs = fields.globs ?? fields.paths;
  const rule: Rule = { name, path, origin, content: body.trim() };
  if (fields.description) rule.description = fields.description.trim();
  if (globs?.length) rule.globs = globs;
  if (fields.alwaysApply !== undefined) rule.alwaysApply = fields.alwaysApply;
  if (condition?.length) rule.condition = condition;
  if (fields.astCondition?.length) rule.astCondition = fields.astCondition;
  if (fields.scope?.length) rule.scope = fields.scope;
  if (fields.interruptMode) rule.interruptMode = fields.interruptMode;
  const said = problems.filter((item): item is string => item !== undefined);
  if (said.length > 0) rule.problem = said.join("; ");
  return rule;
}
