import type { Rule } from "./rule.ts";
import { type TtsrSettings, TtsrManager } from "./ttsr.ts";
import type { DiscoveredRules, SkippedRule } from "./discover.ts";

/** The discovered rules split as the original omp splits them (rulebook-matching-pipeline.md §5). */
export interface Rulebook {
  /** Rules with a condition that compiles: watched in the stream, never in the system prompt. */
  stream: Rule[];
  /** `alwaysApply: true`: their text is in the system prompt. */
  alwaysApply: Rule[];
  /** With a description: listed in the system prompt, read on demand as `rule://<name>`. */
  listed: Rule[];
  skipped: SkippedRule[];
  /** Dropped conditions of registered rules (a bad regex among good ones). */
  warnings: string[];
}

export function bucketRules(discovered: DiscoveredRules, settings: TtsrSettings): Rulebook {
  const book: Rulebook = { stream: [], alwaysApply: [], listed: [], skipped: [...discovered.skipped], warnings: [] };
  const manager = new TtsrManager(settings);
  for (const rule of discovered.rules) {
    if (settings.disabledRules.includes(rule.name)) {
      book.skipped.push({ path: rule.path, name: rule.name, reason: "listed in ttsr.disabledRules" });
      continue;
    }
    if (rule.condition || rule.astCondition) {
      const added = manager.addRule(rule);
      book.warnings.push(...added.warnings.map((warning) => `${rule.path}: ${warning}`));
      if (added.added) {
        book.stream.push(rule);
        continue;
      }
      book.skipped.push({ path: rule.path, name: rule.name, reason: `not watched: ${added.reason}` });
    }
    if (rule.alwaysApply) book.alwaysApply.push(rule);
    else if (rule.description) book.listed.push(rule);
    else if (!rule.condition && !rule.astCondition) book.skipped.push({ path: rule.path, name: rule.name, reason: "no condition, no description and not alwaysApply: nothing would use it" });
  }
  return book;
}

/** The session's stream rules, with those a resumed session already injected marked. */
export function streamRulesFor(book: Rulebook, settings: TtsrSettings, injected: readonly string[] = []): TtsrManager | undefined {
  if (book.stream.length === 0) return undefined;
  const manager = new TtsrManager(settings);
  for (const rule of book.stream) manager.addRule(rule);
  manager.restoreInjected(injected);
  return manager;
}

/** Rules the model may read with `rule://<name>`: the listed and the always-apply ones (not stream-only rules, as in the original). */
export function readableRules(book: Rulebook): Rule[] {
  return [...book.listed, ...book.alwaysApply];
}

/** The system prompt's `# Rules` section: names, descriptions and globs; the model reads the text on demand. */
export function rulesSection(book: Rulebook): string | undefined {
  if (book.listed.length === 0) return undefined;
  const lines = book.listed.map((rule) => `- ${rule.name}: ${rule.description}${rule.globs ? ` (files: ${rule.globs.join(", ")})` : ""}`);
  return `# Rules\nRead rule://<name> before working in a rule's domain or on files its globs match:\n${lines.join("\n")}`;
}
