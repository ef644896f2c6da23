import type { ListedModel } from "../../model-lists.ts";
import { num, str } from "../../model-lists.ts";
import type { JsonGet } from "../wire-api.ts";

/** `GET /v1/models`, paged by `after_id`. */
export async function listAnthropicModels(baseUrl: string, apiKey: string | undefined, get: JsonGet): Promise<ListedModel[]> {
  const out: ListedModel[] = [];
  const headers: Record<string, string> = { "anthropic-version": "2023-06-01", ...(apiKey ? { "x-api-key": apiKey } : {}) };
  let after: string | undefined;
  for (let page = 0; page < 20; page++) {
    const body = await get(`${baseUrl}/v1/models?limit=1000${after ? `&after_id=${encodeURIComponent(after)}` : ""}`, headers);
    for (const m of (body.data as Record<string, unknown>[] | undefined) ?? []) {
      const id = str(m.id);
      if (id) out.push({ id, name: str(m.display_name), contextWindow: num(m.max_input_tokens), maxTokens: num(m.max_tokens) });
    }
    after = body.has_more === true ? str(body.last_id) : undefined;
    if (!after) break;
  }
  return out;
}
