import { validateConfig } from "./validate-config.ts";
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

/** Throws the error for a provider of the merged models.yml files that breaks a rule, blamed on `file`. */
export function checkMergedProvider(id: string, provider: unknown, file: string): void {
  validateConfig(ModelsFile, { providers: { [id]: provider } }, file);
}
