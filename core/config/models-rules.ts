import type { ProviderEntry } from "./models-schema.ts";

/** A rule a provider breaks: where under the provider (nowhere: the provider itself) and why. */
export interface ProviderProblem {
  path?: (string | number)[];
  message: string;
}

const OVERRIDE_KEYS = ["baseUrl", "apiKey", "auth", "headers"] as const;

/**
 * The rules that make a well-formed provider entry usable, for the merged models.yml files (a
 * project file may add models to a provider whose baseUrl the global file sets). Plain code, not
 * zod: the schema reports these problems through its refinement, and start-up checks a provider
 * from the config cache with this alone.
 */
export function providerProblems(provider: ProviderEntry): ProviderProblem[] {
  const models = provider.models ?? [];
  if (models.length === 0) {
    if (OVERRIDE_KEYS.some((key) => provider[key] !== undefined)) return [];
    return [
      {
        message: "sets nothing: give baseUrl, apiKey, auth or headers to override a built-in provider, or models (with baseUrl and api) to add one",
      },
    ];
  }
  const problems: ProviderProblem[] = [];
  if (!provider.baseUrl) problems.push({ path: ["baseUrl"], message: "missing; required for a provider that lists models" });
  if (provider.auth !== "none" && !provider.apiKey) {
    problems.push({ path: ["apiKey"], message: "missing; required for a provider that lists models, unless auth: none" });
  }
  const seen = new Set<string>();
  models.forEach((model, index) => {
    if (!model.api && !provider.api) problems.push({ path: ["models", index, "api"], message: "missing; give api here or on the provider" });
    if (seen.has(model.id)) problems.push({ path: ["models", index, "id"], message: `"${model.id}" is listed twice` });
    seen.add(model.id);
  });
  return problems;
}
