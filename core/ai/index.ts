import { CATALOG } from "./catalog.ts";
import type { AssistantMessage } from "./messages.ts";
import type { Model } from "./model.ts";
import { PROVIDERS, getProvider, providerBaseUrl } from "./providers-table.ts";
import { WIRE_APIS } from "./apis/index.ts";
import type { AssistantEvent, Context, StreamOptions } from "./stream.ts";

/**
 * Streams one assistant reply from whichever wire API the model speaks. Without
 * `options.apiKey` the provider's env var is used; callers with a config or credential store
 * resolve the key first (core/auth/keys.ts). Ends with exactly one `done` or `error` event.
 */
export function stream(model: Model, context: Context, options: StreamOptions = {}): AsyncIterable<AssistantEvent> {
  const apiKey = options.apiKey ?? envApiKey(model.provider);
  return WIRE_APIS[model.api].stream(model, context, apiKey === undefined ? options : { ...options, apiKey });
}

/** Drains `stream` and returns the final message; failures are in `stopReason`/`errorMessage`, never thrown. */
export async function complete(model: Model, context: Context, options: StreamOptions = {}): Promise<AssistantMessage> {
  for await (const event of stream(model, context, options)) {
    if (event.type === "done" || event.type === "error") return event.message;
  }
  throw new Error(`the ${model.api} adapter ended without a done or error event`);
}

function envApiKey(provider: string, env: Record<string, string | undefined> = process.env): string | undefined {
  const info = getProvider(provider);
  return info?.keyEnv.map((name) => env[name]).find((v) => v !== undefined && v !== "");
}

/** Every catalog model, with base URLs as the environment overrides them. */
export function builtinModels(env: Record<string, string | undefined> = process.env): Model[] {
  return PROVIDERS.flatMap((provider) =>
    (CATALOG[provider.id] ?? []).map((entry) => ({
      ...entry,
      provider: provider.id,
      api: entry.api ?? provider.api,
      baseUrl: providerBaseUrl(provider, env),
      ...(provider.headers && { headers: { ...provider.headers } }),
    })),
  );
}

export { addUsage, calculateCost, usageFor } from "./usage.ts";
export { discoverLocalModels } from "./discovery.ts";
export { PROVIDERS, getProvider, providerBaseUrl } from "./providers-table.ts";
export { invalidArgumentsError } from "./tool-arguments.ts";
export type { AssistantEvent, Context, StreamFunction, StreamOptions, ToolSpec } from "./stream.ts";
