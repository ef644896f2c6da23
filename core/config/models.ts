import { resolve } from "node:path";
import type { Model } from "../ai/model.ts";
import { globalModelsPath, projectModelsPath } from "../paths.ts";
import { ConfigCache } from "./config-cache.ts";
import { deepMerge } from "./merge.ts";
import { providerProblems } from "./models-rules.ts";
import type { ModelsConfig, ProviderEntry } from "./models-schema.ts";
import { type Mapping, readConfigBytes } from "./config-file.ts";
import { OmpError } from "../errors/omp-error.ts";
import { EXIT_USAGE } from "../errors/exit-codes.ts";
import { folderTrust, noteSkippedForTrust } from "../trust/folder-trust.ts";
import { untrustedModels } from "./untrusted-models.ts";

/** YAML and zod, loaded on a cache miss or a broken rule only (see config-cache.ts). */
const slowPath = () => require("./validate-files.ts") as typeof import("./validate-files.ts");

/** Context window and output limit assumed for a custom model that does not state them. */
export const CUSTOM_MODEL_DEFAULTS = { contextWindow: 128_000, maxTokens: 16_384 };

export interface LoadedModelsConfig {
  config: ModelsConfig;
  /** The files that were read, global first. */
  files: string[];
}

/**
 * `~/.omp/agent/models.yml` with `<cwd>/.omp/models.yml` merged over it (mappings merge, lists such
 * as `models` replace); in an untrusted folder the project file may only add models to the user's
 * own providers (core/config/untrusted-models.ts). Both optional; a file unchanged since it last validated comes from the
 * config cache. Throws OmpError (exit 2) naming the file on any problem.
 */
export function loadModelsConfig(options: { cwd?: string; env?: NodeJS.ProcessEnv; trusted?: boolean } = {}): LoadedModelsConfig {
  const cwd = resolve(options.cwd ?? process.cwd());
  const userPath = globalModelsPath(options.env);
  const projectPath = projectModelsPath(cwd);
  // Asked only when there is a project file: most folders have none.
  const trusted = () => options.trusted ?? folderTrust(cwd, { env: options.env }).trusted;
  const cache = ConfigCache.open("models", options.env);
  const files: string[] = [];
  const definedIn = new Map<string, string>();
  let merged: Mapping = {};
  try {
    for (const path of [userPath, projectPath]) {
      const bytes = readConfigBytes(path);
      if (bytes === undefined) {
        cache.forget(path);
        continue;
      }
      let values = readModelsFile(cache, path, bytes);
      if (path === projectPath && !trusted()) {
        const filtered = untrustedModels(values, merged);
        for (const item of filtered.skipped) noteSkippedForTrust(`.omp/models.yml: ${item}`);
        values = filtered.values;
      }
      for (const id of Object.keys((values.providers ?? {}) as Mapping)) definedIn.set(id, path);
      merged = deepMerge(merged, values);
      files.push(path);
    }
  } finally {
    cache.save();
  }
  // The usability rules run per provider on the merged view, blamed on the last file that touched it.
  const providers = (merged.providers ?? {}) as Record<string, ProviderEntry>;
  const config: ModelsConfig = { providers: {}, ...(merged.modelRoles ? { modelRoles: merged.modelRoles as Record<string, string> } : {}) };
  for (const [id, provider] of Object.entries(providers)) {
    if (providerProblems(provider).length > 0) slowPath().checkMergedProvider(id, provider, definedIn.get(id)!);
    config.providers[id] = provider;
  }
  return { config, files };
}

/** A models.yml; one with keys omp does not know is read without them (see salvagedModelsFile), and not cached, so the warning comes back. */
function readModelsFile(cache: ConfigCache, path: string, bytes: Buffer): Mapping {
  try {
    return cache.values(path, bytes, (text) => slowPath().modelsFileValues(text, path));
  } catch (error) {
    if (!(error instanceof OmpError) || error.exitCode !== EXIT_USAGE) throw error;
    return slowPath().salvagedModelsFile(bytes.toString("utf8"), path);
  }
}

/**
 * The models that models.yml adds, ready for the registry; provider headers are the base for model
 * headers. Built directly rather than through the Model schema, which would load zod at start-up;
 * the fields left out get the schema's defaults (test/unit/config/models.test.ts holds them equal).
 */
export function customModels(config: ModelsConfig): Model[] {
  return Object.entries(config.providers).flatMap(([provider, entry]) =>
    (entry.models ?? []).map(
      (model): Model => ({
        id: model.id,
        name: model.name ?? model.id,
        provider,
        // models.yml's rules guarantee an api on the model or its provider.
        api: (model.api ?? entry.api)!,
        baseUrl: entry.baseUrl!.replace(/\/+$/, ""),
        reasoning: model.reasoning ?? false,
        input: model.input ?? ["text"],
        cost: {
          input: model.cost?.input ?? 0,
          output: model.cost?.output ?? 0,
          cacheRead: model.cost?.cacheRead ?? 0,
          cacheWrite: model.cost?.cacheWrite ?? 0,
        },
        contextWindow: model.contextWindow ?? CUSTOM_MODEL_DEFAULTS.contextWindow,
        maxTokens: model.maxTokens ?? CUSTOM_MODEL_DEFAULTS.maxTokens,
        headers: entry.headers || model.headers ? { ...entry.headers, ...model.headers } : undefined,
        thinking: model.thinking && { off: "omit", fixedSampling: false, ...model.thinking },
      }),
    ),
  );
}
