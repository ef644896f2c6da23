import { type Dirent, readdirSync, statSync } from "node:fs";
import { isDirEntry, isFile } from "../fs/dir-entry.ts";
import { dirname, join, resolve } from "node:path";
import { projectRoot } from "../fs/project-root.ts";
import { agentDir, displayPath, homeDir } from "../paths.ts";
import type { RuleOrigin } from "./rule.ts";

/** A rule file that does not take part, and why (for `omp ttsr list`). */
export interface SkippedRule {
  path: string;
  name?: string;
  reason: string;
}

/** Bounds on what a rules folder may make omp read. */
const MAX_FILES = 200;
const MAX_BYTES = 64 * 1024;

export interface RuleDir {
  dir: string;
  origin: RuleOrigin;
  extensions: readonly string[];
  recursive: boolean;
  /** In the project: loaded only when the folder is trusted. */
  project: boolean;
  /** One file instead of the folder's (Windsurf's global_rules.md, a `.clinerules` file), under this name. */
  file?: { path: string; name: string };
}

/** `.md`/`.mdc` files of `dir` (and below, for Claude's folders), sorted, at most MAX_FILES. */
export function ruleFiles(source: RuleDir, skipped: SkippedRule[]): string[] {
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
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name));
    } catch {
      return;
    }
    for (const entry of entries) {
      const path = join(dir, entry.name);
      if (isDirEntry(dir, entry)) {
        if (source.recursive && depth < 4 && !entry.name.startsWith(".")) walk(path, depth + 1);
        continue;
      }
      if (!source.extensions.some((ext) => entry.name.endsWith(ext)) || !isFile(path)) continue;
      if (found.length >= MAX_FILES) skipped.push({ path, reason: `more than ${MAX_FILES} rule files in ${displayPath(source.dir)}` });
      else if (statSync(path).size > MAX_BYTES) skipped.push({ path, reason: `larger than ${MAX_BYTES / 1024} KB` });
      else found.push(path);
    }
  };
  walk(source.dir, 0);
  return found;
}

/** The nearest `.clinerules` from `cwd` up to the repository root: a folder of rules, or one rule file. */
function clineSource(cwd: string): RuleDir | undefined {
  const top = projectRoot(cwd);
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    const path = join(dir, ".clinerules");
    try {
      const stat = statSync(path);
      return stat.isDirectory() ? { dir: path, origin: "cline", extensions: [".md"], recursive: false, project: true } : { dir, origin: "cline", extensions: [], recursive: false, project: true, file: { path, name: "clinerules" } };
    } catch {
      // Not here: one folder up.
    }
    if (dir === top || dirname(dir) === dir) return undefined;
  }
}

/** Where rules are read from, in the original's precedence (first wins on a name). */
export function ruleSources(cwd: string, env: NodeJS.ProcessEnv = process.env, home: string = homeDir()): RuleDir[] {
  const sources: RuleDir[] = [
    { dir: join(cwd, ".omp", "rules"), origin: "project", project: true, extensions: [".md", ".mdc"], recursive: false },
    { dir: join(agentDir(env), "rules"), origin: "user", project: false, extensions: [".md", ".mdc"], recursive: false },
    { dir: join(cwd, ".claude", "rules"), origin: "claude-project", project: true, extensions: [".md"], recursive: true },
    { dir: join(home, ".claude", "rules"), origin: "claude-user", project: false, extensions: [".md"], recursive: true },
    // The original's other providers, in its order: Cursor (user, then project), Windsurf, Cline.
    { dir: join(home, ".cursor", "rules"), origin: "cursor-user", project: false, extensions: [".mdc", ".md"], recursive: false },
    { dir: join(cwd, ".cursor", "rules"), origin: "cursor-project", project: true, extensions: [".mdc", ".md"], recursive: false },
    { dir: join(home, ".codeium", "windsurf", "memories"), origin: "windsurf-user", project: false, extensions: [], recursive: false, file: { path: join(home, ".codeium", "windsurf", "memories", "global_rules.md"), name: "global_rules" } },
    { dir: join(cwd, ".windsurf", "rules"), origin: "windsurf-project", project: true, extensions: [".md"], recursive: false },
  ];
  const cline = clineSource(cwd);
  if (cline) sources.push(cline);
  return sources;
}

/** The project's rule folders and files that hold rules, which trust would let load ("rules in …"), for the trust question. */
export function untrustedRuleSources(cwd: string, env: NodeJS.ProcessEnv = process.env): string[] {
  return ruleSources(cwd, env)
    .filter((source) => source.project && ruleFiles(source, []).length > 0)
    .map((source) => `rules in ${displayPath(source.file?.path ?? source.dir)}`);
}
