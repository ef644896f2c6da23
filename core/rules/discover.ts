import { readFileSync, readdirSync, statSync } from "node:fs";
import { basename, dirname, join, relative, resolve } from "node:path";
import { projectRoot } from "../fs/project-root.ts";
import { agentDir, displayPath, homeDir } from "../paths.ts";
import { folderTrust, noteSkippedForTrust } from "../trust/folder-trust.ts";
import { type Rule, type RuleOrigin, parseRule } from "./rule.ts";

/** A rule file that does not take part, and why (for `omp ttsr list`). */
export interface SkippedRule {
  path: string;
  name?: string;
  reason: string;
}

export interface DiscoveredRules {
  /** First wins on a name: project, user, then Claude Code's project and user rules. */
  rules: Rule[];
  skipped: SkippedRule[];
}

/** Bounds on what a rules folder may make omp read. */
const MAX_FILES = 200;
const MAX_BYTES = 64 * 1024;

interface RuleDir {
  dir: string;
  origin: RuleOrigin;
  extensions: readonly string[];
  recursive: boolean;
  /** One file instead of the folder's (Windsurf's global_rules.md, a `.clinerules` file), under this name. */
  file?: { path: string; name: string };
}

/** `.md`/`.mdc` files of `dir` (and below, for Claude's folders), sorted, at most MAX_FILES. */
function ruleFiles(source: RuleDir, skipped: SkippedRule[]): string[] {
  const found: string[] = [];
  if (source.file) {
    try {
      const stat = statSync(source.file.path);
      if (stat.isFile() && stat.size <= MAX_BYTES) return [source.file.path];
      if (stat.isFile()) skipped.push({ path: source.file.path, reason: `larger than ${MAX_BYTES / 1024} KB` });
    } catch {
      // No such file: nothing to load.
    }
    return [];
  }
  const walk = (dir: string, depth: number) => {
    let names: string[];
    try {
      names = readdirSync(dir).sort();
    } catch {
      return;
    }
    for (const name of names) {
      const path = join(dir, name);
      let stat;
      try {
        stat = statSync(path);
      } catch {
        continue;
      }
      if (stat.isDirectory()) {
        if (source.recursive && depth < 4 && !name.startsWith(".")) walk(path, depth + 1);
      } else if (source.extensions.some((ext) => name.endsWith(ext))) {
        if (found.length >= MAX_FILES) {
          skipped.push({ path, reason: `more than ${MAX_FILES} rule files in ${displayPath(source.dir)}` });
          continue;
        }
        if (stat.size > MAX_BYTES) {
          skipped.push({ path, reason: `larger than ${MAX_BYTES / 1024} KB` });
          continue;
        }
        found.push(path);
      }
    }
  };
  walk(source.dir, 0);
  return found;
}

function ruleName(path: string, dir: string): string {
  return relative(dir, path).replace(/\.mdc?$/, "").split(/[\\/]/).join("/") || basename(path);
}

/** The nearest `.clinerules` from `cwd` up to the repository root: a folder of rules, or one rule file. */
function clineSource(cwd: string): RuleDir | undefined {
  const top = projectRoot(cwd);
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    const path = join(dir, ".clinerules");
    try {
      const stat = statSync(path);
      return stat.isDirectory() ? { dir: path, origin: "cline", extensions: [".md"], recursive: false } : { dir, origin: "cline", extensions: [], recursive: false, file: { path, name: "clinerules" } };
    } catch {
      // Not here: one folder up.
    }
    if (dir === top || dirname(dir) === dir) return undefined;
  }
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
  const sources: RuleDir[] = [
    { dir: join(cwd, ".omp", "rules"), origin: "project", extensions: [".md", ".mdc"], recursive: false },
    { dir: join(agentDir(env), "rules"), origin: "user", extensions: [".md", ".mdc"], recursive: false },
    { dir: join(cwd, ".claude", "rules"), origin: "claude-project", extensions: [".md"], recursive: true },
    { dir: join(home, ".claude", "rules"), origin: "claude-user", extensions: [".md"], recursive: true },
    // The original's other providers, in its order: Cursor (user, then project), Windsurf, Cline.
    { dir: join(home, ".cursor", "rules"), origin: "cursor-user", extensions: [".mdc", ".md"], recursive: false },
    { dir: join(cwd, ".cursor", "rules"), origin: "cursor-project", extensions: [".mdc", ".md"], recursive: false },
    { dir: join(home, ".codeium", "windsurf", "memories"), origin: "windsurf-user", extensions: [], recursive: false, file: { path: join(home, ".codeium", "windsurf", "memories", "global_rules.md"), name: "global_rules" } },
    { dir: join(cwd, ".windsurf", "rules"), origin: "windsurf-project", extensions: [".md"], recursive: false },
  ];
  const cline = clineSource(cwd);
  if (cline) sources.push(cline);
  const rules: Rule[] = [];
  const byName = new Map<string, Rule>();
  const untrusted: string[] = [];
  for (const source of sources) {
    const project = source.origin === "project" || source.origin.endsWith("-project") || source.origin === "cline";
    for (const path of ruleFiles(source, skipped)) {
      if (project && !trusted) {
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
