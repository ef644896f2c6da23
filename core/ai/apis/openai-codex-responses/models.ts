import type { ListedModel } from "../../model-lists.ts";
import { num, str } from "../../model-lists.ts";
import type { JsonGet } from "../wire-api.ts";
import { codexRequestHeaders } from "./stream.ts";

/** The Codex CLI version the Codex backend is told: it lists the models that version can use. */
const CODEX_CLIENT_VERSION = "0.99.0";

/** `GET /models?client_version=`: the models the ChatGPT plan offers Codex CLI. */
export async function listCodexModels(baseUrl: string, apiKey: string | undefined, get: JsonGet): Promise<ListedModel[]> {
  const body = await get(`${baseUrl}/models?client_version=${CODEX_CLIENT_VERSION}`, codexRequestHeaders(apiKey));
  const out: ListedModel[] = [];
  for (const m of (body.models as Record<string, unknown>[] | undefined) ?? []) {
    const id = str(m.slug);
    if (id && m.visibility !== "hide") out.push({ id, name: str(m.display_name), contextWindow: num(m.context_window) });
  }
  return out;
}
