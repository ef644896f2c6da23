import type { ListedModel } from "../../model-lists.ts";
import { num, str } from "../../model-lists.ts";
import type { JsonGet } from "../wire-api.ts";

/** `GET /models` of OpenAI and every OpenAI-compatible service. */
export async function listOpenAIModels(baseUrl: string, apiKey: string | undefined, get: JsonGet): Promise<ListedModel[]> {
  const body = await get(`${baseUrl}/models`, apiKey ? { authorization: `Bearer ${apiKey}` } : {});
  const out: ListedModel[] = [];
  for (const m of (body.data as Record<string, unknown>[] | undefined) ?? []) {
    const id = str(m.id);
    // Copilot says it under capabilities.limits.
    const limits = ((m.capabilities as Record<string, unknown> | undefined)?.limits ?? {}) as Record<string, unknown>;
    const contextWindow = num(m.context_length) ?? num(m.context_window) ?? num(m.max_model_len) ?? num(limits.max_context_window_tokens);
    if (id) out.push({ id, name: str(m.name), contextWindow });
  }
  return out;
}
