import type { ListedModel } from "../../model-lists.ts";
import { num, str } from "../../model-lists.ts";
import type { JsonGet } from "../wire-api.ts";
import { geminiRoot } from "./root.ts";

/** `GET /v1beta/models`, paged; only models that generate content. */
export async function listGeminiModels(baseUrl: string, apiKey: string | undefined, get: JsonGet): Promise<ListedModel[]> {
  const out: ListedModel[] = [];
  const headers: Record<string, string> = apiKey ? { "x-goog-api-key": apiKey } : {};
  let token: string | undefined;
  for (let page = 0; page < 20; page++) {
    const body = await get(`${geminiRoot(baseUrl)}/v1beta/models?pageSize=1000${token ? `&pageToken=${encodeURIComponent(token)}` : ""}`, headers);
    for (const m of (body.models as Record<string, unknown>[] | undefined) ?? []) {
      const id = str(m.name)?.replace(/^models\//, "");
      const methods = Array.isArray(m.supportedGenerationMethods) ? m.supportedGenerationMethods : ["generateContent"];
      if (id && methods.includes("generateContent")) out.push({ id, name: str(m.displayName), contextWindow: num(m.inputTokenLimit), maxTokens: num(m.outputTokenLimit) });
    }
    token = str(body.nextPageToken);
    if (!token) break;
  }
  return out;
}
