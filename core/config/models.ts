import { resolve } from "node:path";
import type { Model } from "../ai/model.ts";
import { Model as ModelSchema } from "../ai/model-schema.ts";
import { globalModelsPath, projectModelsPath } from "../paths.ts";
import { validateConfig } from "./config-error.ts";
import { deepMerge } from "./merge.ts";
import { ModelsFile, ModelsFileShape, type ModelsConfig } from "./models-schema.ts";
import { type Mapping, readYamlMapping } from "./yaml-file.ts";

/** Context window and output limit assumed for a custom model that does not state them. */
export const CUSTOM_MODEL_DEFAULTS = { contextWindow: 128_000, maxTokens: 16_384 };

export interface LoadedModelsConfig {
  config: ModelsConfig;
  /** The files that were read, global first. */
  files: string[];
}

/**
 * `~/.omp/agent/models.yml` with `<cwd>/.omp/models.yml` merged over it (mappings merge, lists such
 * as `models` replace). Both optional. Throws OmpError (exit 2) naming the file on any problem.
 */
export function loadModelsConfig(options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): LoadedModelsConfig {
  const cwd = resolve(options.cwd ?? process.cwd());
  const files: string[] = [];
  const definedIn = new Map<string, string>();
  let merged: Mapping = {};
  for (const path of [globalModelsPath(options.env), projectModelsPath(cwd)]) {
    const values = readYamlMapping(path);
    if (values === undefined) continue;
    const file = validateConfig(ModelsFileShape, values, path);
    for (const id of Object.keys(file.providers)) definedIn.set(id, path);
    merged = deepMerge(merged, values);
    files.push(path);
  }
  // The usability rules run per provider on the merged view, blamed on the last file that touched it.
  const providers = (merged.providers ?? {}) as Mapping;
  const config: ModelsConfig = { providers: {} };
  for (const [id, provider] of Object.entries(providers)) {
    const checked = validateConfig(ModelsFile, { providers: { [id]: provider } }, definedIn.get(id)!);
    Object.assign(config.providers, checked.providers);
  }
  return { config, files };
}

/** The models that models.yml adds, ready for the registry; provider headers are the base for model headers. */
export function customModels(config: ModelsConfig): Model[] {
  return Object.entries(config.providers).flatMap(([provider, entry]) =>
    (entry.models ?? []).map((model) =>
      ModelSchema.parse({
        id: model.id,
        name: model.name ?? model.id,
        provider,
        api: model.api ?? entry.api,
        baseUrl: entry.baseUrl!.replace(/\/+$/, ""),
        reasoning: model.reasoning,
        input: model.input,
        cost: model.cost,
        contextWindow: model.contextWindow ?? CUSTOM_MODEL_DEFAULTS.contextWindow,
        maxTokens: model.maxTokens ?? CUSTOM_MODEL_DEFAULTS.maxTokens,
        headers: entry.headers || model.headers ? { ...entry.headers, ...model.headers } : undefined,
      }),
    ),
  );
}
