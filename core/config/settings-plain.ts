// Imported with { type: "macro" }: runs when omp is bundled, so start-up gets what it needs from the
// settings schema as plain data (the defaults, and what a setting given by a flag may be) without
// loading zod. The schema stays the one source of truth.
import { z } from "zod";
import { unwrap } from "./schema-walk.ts";
import { Settings } from "./settings-schema.ts";

/** What an empty config.yml validates to: every default. */
export function settingsDefaults(): z.output<typeof Settings> {
  return Settings.parse({});
}

/** A top-level setting whose valid values are one of a few strings, or any string of some length. */
export type PlainRule = { choices: string[] } | { minLength: number };

/**
 * The top-level settings whose values such a rule fully describes, by key; others (numbers,
 * mappings, strings with a pattern) are not listed and need the schema.
 */
export function plainSettingRules(): Record<string, PlainRule> {
  const rules: Record<string, PlainRule> = {};
  for (const [key, schema] of Object.entries(Settings.shape)) {
    const inner = unwrap(schema);
    if (inner instanceof z.ZodEnum && inner.options.every((option) => typeof option === "string")) {
      rules[key] = { choices: inner.options };
    } else if (inner instanceof z.ZodString && (inner._zod.def.checks ?? []).every((check) => check._zod.def.check === "min_length")) {
      rules[key] = { minLength: inner.minLength ?? 0 };
    }
  }
  return rules;
}
