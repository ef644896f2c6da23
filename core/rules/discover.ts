import { readFileSync } from "node:fs";
import { basename, relative } from "node:path";
import { displayPath, homeDir } from "../paths.ts";
import { type FoundRules, findRuleFiles } from "./find.ts";
import { type Rule, parseRule } from "./rule.ts";
import type { SkippedRule } from "./sources.ts";

export type { SkippedRule };

export interface DiscoveredRules {
  /** First wins on a name: project, user, then Claude Code's project and user rules. */
  rules: Rule[];
  skipped: SkippedRule[];
}

function ruleName(path: string, dir: string): string {
  return relative(dir, path).replace(/\.mdc?$/, "").split(/[\\/]/).join("/") || basename(path);
}

/**
 * The rule files the original omp reads (`<cwd>/.omp/rules/*.{md,mdc}`, `~/.omp/agent/rules/`,
 * Cursor's `.cursor/rules`, Windsurf's `.windsurf/rules` and `global_rules.md`, the nearest
 * `.clinerules`) and Claude Code's (`<cwd>/.claude/rules/**\/*.md`, `~/.claude/rules/`). A project's folders count
 * only when the folder is trusted. A Claude rule without `paths` is loaded at every start, as
 * Claude Code does: it becomes an always-apply rule; one with `paths` is listed for those files.
 */
export function discoverRules(cwd: string, env: NodeJS.ProcessEnv = process.env, home: string = homeDir()): DiscoveredRules {
  return parseFoundRules(findRuleFiles(cwd, env, home));
}

/** Reads and parses the files `findRuleFiles` found; the first of a name wins. */
export function parseFoundRules(found: FoundRules): DiscoveredRules {
  const skipped = [...found.skipped];
  const rules: Rule[] = [];
  const byName = new Map<string, Rule>();
  for (const { path, source } of found.files) {
    let text: string;
    try {
      text = readFileSync(path, "utf8");
    } catch (error) {
      skipped.push({ path, reason: `unreadable: ${(error as Error).message}` });
      continue;
    }
    const rule = parseRule(source.file?.name ?? ruleName(path, source.dir), path, source.origin, text);
    if (source.origin.startsWith("claude") && !rule.condition && !rule.astCondition) {
      if (!rule.globs) rule.alwaysApply ??= true;
      else rule.description ??= `Rules for files matching ${rule.globs.join(", ")}`;
    }
    const first = byName.get(rule.name);
    if (first) {
      skipped.push({ path, name: rule.name, reason: `shadowed by ${displayPath(first.path)} (same name)` });
      continue;
    }
    byName.set(rule.name, rule);
    rules.push(rule);
  }
  return { rules, skipped };
}
