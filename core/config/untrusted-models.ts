import { type Mapping, isMapping } from "./config-file.ts";
import type { FilteredValues } from "./untrusted-settings.ts";

/**
 * What a project `.omp/models.yml` may give while its folder is untrusted: models added to a
 * provider the user's own models.yml defines with its endpoint, without headers. Nothing that
 * decides where requests go or what credential they carry (baseUrl, apiKey and its `!command`,
 * auth, headers, api) and no provider of its own, which would need all of those.
 */
export function untrustedModels(project: Mapping, user: Mapping): FilteredValues {
  const userProviders = isMapping(user.providers) ? user.providers : {};
  const providers: Mapping = {};
  const skipped: string[] = [];
  for (const [id, entry] of Object.entries(isMapping(project.providers) ? project.providers : {})) {
    if (!isMapping(entry)) continue;
    const owned = isMapping(userProviders[id]) && typeof userProviders[id].baseUrl === "string";
    const dropped = Object.keys(entry)
      .filter((key) => !(owned && key === "models"))
      .map((key) => (key === "apiKey" && String(entry.apiKey).trim().startsWith("!") ? "apiKey command" : key));
    const models = owned && Array.isArray(entry.models) ? entry.models.map((model) => withoutHeaders(model, dropped)) : [];
    if (models.length > 0) providers[id] = { models };
    if (dropped.length > 0) skipped.push(`providers.${id} (${[...new Set(dropped)].join(", ")})`);
  }
  return { values: Object.keys(providers).length > 0 ? { providers } : {}, skipped };
}

function withoutHeaders(model: unknown, dropped: string[]): unknown {
  if (!isMapping(model) || model.headers === undefined) return model;
  const { headers: _headers, ...rest } = model;
  dropped.push("model headers");
  return rest;
}
