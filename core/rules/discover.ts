import { readFileSync } from "node:fs";
import { basename, join, relative } from "node:path";
import { displayPath, homeDir } from "../paths.ts";
import { folderTrust, noteSkippedForTrust } from "../trust/folder-trust.ts";
import { type Rule, parseRule } from "./rule.ts";
import { type SkippedRule, ruleFiles, ruleSources } from "./sources.ts";

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
  const skipped: SkippedRule[] = [];
  const trusted = folderTrust(cwd, { env }).trusted;
  const sources = ruleSources(cwd, env, home);
  const rules: Rule[] = [];
  const byName = new Map<string, Rule>();
  const untrusted: string[] = [];
  for (const source of sources) {
    for (const path of ruleFiles(source, skipped)) {
      if (source.project && !trusted) {
        skipped.push({ path, reason: "the folder is not trusted (`omp trust` to load its rules)" });
        untrusted.push(path);
        continue;
      }
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
  }
  if (untrusted.length > 0) noteSkippedForTrust(`rules in ${[...new Set(untrusted.map((path) => displayPath(join(path, ".."))))].join(", ")}`);
  return { rules, skipped };
}
