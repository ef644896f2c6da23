import { OmpError } from "../errors/omp-error.ts";
import { warnUser } from "../errors/user-warnings.ts";
import { displayPath } from "../paths.ts";
import { salvageConfig, validateConfig } from "./validate-config.ts";
import { ModelsFile, ModelsFileShape } from "./models-schema.ts";
import { Settings, type SettingsInput } from "./settings-schema.ts";
import type { Mapping } from "./config-file.ts";
import { parseYamlMapping } from "./yaml-file.ts";

/**
 * The slow path of loading configuration: YAML and the zod schemas, with errors that name the
 * file, the key, what was found and what is allowed. Required only when a file is not in the
 * config cache or a value needs the schema, so that start-up otherwise loads neither.
 */

/** A config.yml's values, once they validated. */
export function settingsFileValues(text: string, path: string): Mapping {
  const values = parseYamlMapping(text, path);
  validateConfig(Settings, values, path);
  return values;
}

/**
 * A config.yml that does not validate, read as far as it can be: YAML that does not parse gives
 * nothing, a key the schema refuses (unknown to omp, say the original omp's) is left out. Each
 * problem is said once, as the error would say it, with the command that mends it.
 */
export function salvagedSettingsFile(text: string, path: string, unsetCommand: (key: string) => string): Mapping {
  let values: Mapping;
  try {
    values = parseYamlMapping(text, path);
  } catch (error) {
    if (!(error instanceof OmpError)) throw error;
    warnUser(`${error.message.replaceAll("\n", "; ")} (the file is ignored until it is fixed)`);
    return {};
  }
  const { values: kept, setAside } = salvageConfig(Settings, values);
  const where = displayPath(path);
  const unknown = setAside.filter((item) => item.unknown);
  // Many unknown keys (the original omp's config.yml has dozens omp does without) are one line, not a screenful.
  const oneByOne = unknown.length > 1 ? setAside.filter((item) => !item.unknown) : setAside;
  for (const { key, problem } of oneByOne) {
    warnUser(key === "" ? `${where}: ${problem} (the file is ignored until it is fixed)` : `${where}: ${problem} (ignored; \`${unsetCommand(key)}\` removes it)`);
  }
  if (unknown.length > 1) {
    const named = unknown.slice(0, 10).map(({ key, hint }) => (hint ? `${key} (did you mean ${hint}?)` : key));
    const more = unknown.length > named.length ? `, and ${unknown.length - named.length} more` : "";
    warnUser(`${where}: ${unknown.length} keys omp does not know are ignored: ${named.join(", ")}${more}; \`${unsetCommand(unknown[0]!.key)}\` removes one`);
  }
  return kept;
}

/** Settings given on the command line; throws when one is invalid. */
export function checkRuntimeSettings(values: SettingsInput): void {
  validateConfig(Settings, values, "command-line options");
}

/** A models.yml's values, once each provider is well-formed (whether it is usable needs the merged view). */
export function modelsFileValues(text: string, path: string): Mapping {
  const values = parseYamlMapping(text, path);
  validateConfig(ModelsFileShape, values, path);
  return values;
}

/**
 * A models.yml with keys omp does not know (the original omp's `authHeader`, `discovery`,
 * `compat`, …): read without them, each said once. A wrong value of a known key stays an error,
 * since a provider without its base URL or key cannot be reached anyway.
 */
export function salvagedModelsFile(text: string, path: string): Mapping {
  const values = parseYamlMapping(text, path);
  const { values: kept, setAside } = salvageConfig(ModelsFileShape, values);
  if (setAside.some(({ unknown }) => !unknown)) validateConfig(ModelsFileShape, values, path);
  const where = displayPath(path);
  for (const { problem } of setAside) warnUser(`${where}: ${problem} (ignored; remove it from the file to silence this)`);
  return kept;
}

/** Throws the error for a provider of the merged models.yml files that breaks a rule, blamed on `file`. */
export function checkMergedProvider(id: string, provider: unknown, file: string): void {
  validateConfig(ModelsFile, { providers: { [id]: provider } }, file);
}
