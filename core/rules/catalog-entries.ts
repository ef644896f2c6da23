import { sep } from "node:path";
import type { Catalog } from "../extensions/catalog.ts";
import { fileSource } from "../extensions/session-catalog.ts";
import type { SourceKind } from "../extensions/sources.ts";
import { discoverRules } from "./discover.ts";
import type { Rule, RuleOrigin } from "./rule.ts";
import { ruleSources } from "./sources.ts";

/**
 * The rule files (stream rules among them) in the same catalog as skills, commands and hooks, so
 * `omp extensions` and `/extensions` list them with their source: each rule with how it comes
 * into play, and each file that does not take part with why. Found as a run finds them
 * (discover.ts), so the listing and a run agree. `omp ttsr list` reports the problems already.
 */
export function recordRules(catalog: Catalog, cwd: string, env: NodeJS.ProcessEnv): void {
  const { rules, skipped } = discoverRules(cwd, env);
  for (const rule of rules) {
    catalog.add(
      {
        kind: "rule",
        name: rule.name,
        status: "loaded",
        path: rule.path,
        source: fileSource(kindOf(rule.origin), rule.path),
        ...(rule.description ? { description: rule.description } : {}),
        detail: howItApplies(rule),
        data: { origin: rule.origin, ...(rule.condition ? { condition: rule.condition } : {}), ...(rule.astCondition ? { astCondition: rule.astCondition } : {}), ...(rule.globs ? { globs: rule.globs } : {}), ...(rule.alwaysApply ? { alwaysApply: true } : {}) },
        ...(rule.problem ? { warning: rule.problem } : {}),
      },
      { reported: true },
    );
  }
  const sources = ruleSources(cwd, env);
  for (const file of skipped) {
    const origin = sources.find((source) => file.path === source.file?.path || file.path.startsWith(source.dir + sep))?.origin ?? "project";
    const name = file.name ?? file.path.split(sep).at(-1)!.replace(/\.mdc?$/, "");
    const status = file.reason.startsWith("shadowed by") ? "shadowed" : "skipped";
    catalog.add({ kind: "rule", name, status, path: file.path, source: fileSource(kindOf(origin), file.path, status !== "skipped"), reason: file.reason }, { reported: true });
  }
}

function kindOf(origin: RuleOrigin): SourceKind {
  return origin === "user" || origin.endsWith("-user") ? "user" : "project";
}

/** When the rule reaches the model, in a few words. */
function howItApplies(rule: Rule): string {
  const how: string[] = [];
  if (rule.condition) how.push(`stream rule: ${rule.condition.join(" | ")}`);
  if (rule.astCondition) how.push(`stream rule on edits: ${rule.astCondition.join(" | ")}`);
  if (rule.alwaysApply) how.push("always in the system prompt");
  else if (rule.globs) how.push(`for ${rule.globs.join(", ")}`);
  return how.length > 0 ? how.join("; ") : "read when the model asks for it";
}
