import { join } from "node:path";
import { displayPath, homeDir } from "../paths.ts";
import { folderTrust, noteSkippedForTrust } from "../trust/folder-trust.ts";
import { type RuleDir, type SkippedRule, ruleFiles, ruleSources } from "./sources.ts";

/** The rule files a session may load, before any is read: most projects have none, and then the parser (zod) never loads. */
export interface FoundRules {
  files: { path: string; source: RuleDir }[];
  skipped: SkippedRule[];
}

/** The rule files of every source (core/rules/sources.ts) in order; a project's only when the folder is trusted. */
export function findRuleFiles(cwd: string, env: NodeJS.ProcessEnv = process.env, home: string = homeDir()): FoundRules {
  const skipped: SkippedRule[] = [];
  const trusted = folderTrust(cwd, { env }).trusted;
  const files: FoundRules["files"] = [];
  const untrusted: string[] = [];
  for (const source of ruleSources(cwd, env, home)) {
    for (const path of ruleFiles(source, skipped)) {
      if (source.project && !trusted) {
        skipped.push({ path, reason: "the folder is not trusted (`omp trust` to load its rules)" });
        untrusted.push(path);
        continue;
      }
      files.push({ path, source });
    }
  }
  if (untrusted.length > 0) noteSkippedForTrust(`rules in ${[...new Set(untrusted.map((path) => displayPath(join(path, ".."))))].join(", ")}`);
  return { files, skipped };
}
