import type { TransportId } from "../providers-table.ts";
import type { ProviderRequest } from "../http/provider-stream.ts";
import type { SseEvent } from "../../http/sse.ts";
import type { ListedModel } from "../model-lists.ts";
import type { Api, Model } from "../model.ts";
import type { StreamOptions } from "../stream.ts";

/** A request as it goes on the wire: the body already serialised, since a signature covers its bytes. */
export interface WireRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/**
 * How a cloud account is reached: its URL, its authentication (a signature, a minted token, a
 * key header) and, where it does not speak SSE, its framing. The adapter has built the wire
 * API's request as for the API's own host; the transport rewrites it. Loaded only when a model of
 * such a provider is used.
 */
export interface Transport {
  /** Called for every attempt: credentials may have been refreshed and signatures carry the time. */
  prepare(request: ProviderRequest, model: Model, options: StreamOptions): Promise<WireRequest>;
  /** The response body as the events the adapter's decoder takes; absent: SSE. */
  events?(body: ReadableStream<Uint8Array>): AsyncGenerator<SseEvent>;
  /** What the account serves now, for `omp models`; throws with a reason when it cannot say. */
  listModels(source: { provider: string; api: Api; baseUrl: string }, apiKey: string | undefined, signal: AbortSignal): Promise<ListedModel[]>;
}

export async function loadTransport(id: TransportId): Promise<Transport> {
  switch (id) {
    case "bedrock":
      return (await import("./bedrock.ts")).bedrockTransport;
    case "vertex":
      return (await import("./vertex.ts")).vertexTransport;
    case "azure":
      return (await import("./azure.ts")).azureTransport;
  }
}

/** Auth headers the adapters add for the API's own host; a cloud puts its own in their place. */
const DIRECT_AUTH = ["authorization", "x-api-key", "x-goog-api-key", "api-key"];

export function withoutDirectAuth(headers: Record<string, string>, drop: string[] = []): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (!DIRECT_AUTH.includes(name.toLowerCase()) && !drop.includes(name.toLowerCase())) out[name] = value;
  }
  return out;
}

/**
 * An Anthropic Messages body for a cloud that names the model in its URL and the API version in
 * the body (Bedrock, Vertex): `model` goes, `anthropic_version` comes, and betas move from the
 * header into the body.
 */
export function anthropicCloudBody(body: unknown, version: string, headers: Record<string, string>, keepStream: boolean): Record<string, unknown> {
  const { model: _model, stream, ...rest } = body as Record<string, unknown>;
  const out: Record<string, unknown> = { anthropic_version: version, ...rest };
  if (keepStream && stream !== undefined) out.stream = stream;
  const betas = headers["anthropic-beta"];
  if (betas) out.anthropic_beta = betas.split(",").map((beta) => beta.trim()).filter(Boolean);
  return out;
}

/** A JSON GET with a time limit and a bounded body, for the accounts' model lists. */
export async function getJson(url: string, headers: Record<string, string>, signal: AbortSignal): Promise<Record<string, unknown>> {
  const response = await fetch(url, { headers: { accept: "application/json", ...headers }, signal });
  const text = await response.text();
  if (!response.ok) throw new Error(`GET ${new URL(url).pathname} answered ${response.status}${text ? `: ${text.slice(0, 200)}` : ""}`);
  if (text.length > 8 * 1024 * 1024) throw new Error(`GET ${new URL(url).pathname} answered more than 8 MB`);
  const body: unknown = JSON.parse(text);
  if (body === null || typeof body !== "object") throw new Error(`GET ${new URL(url).pathname} answered something that is not a JSON object`);
  return body as Record<string, unknown>;
}

/** A `{name}` placeholder of a provider's default base URL, filled from the first variable set. */
export function fillPlaceholder(url: string, name: string, value: string | undefined, hint: string): string {
  if (!url.includes(`{${name}}`)) return url;
  if (!value) throw new Error(hint);
  return url.replaceAll(`{${name}}`, value);
}
