import type { Model } from "../ai/model.ts";
import { anthropicRequestBody } from "../ai/apis/anthropic-messages/stream.ts";
import type { DecodedRequest } from "./codec.ts";
import { estimateTokens } from "./handler.ts";
import type { Upstream } from "./upstream.ts";
import { WIRE_APIS } from "../ai/apis/index.ts";

const COUNT_TIMEOUT_MS = 10_000;

/**
 * Input tokens of a request, for Claude Code's `/context`: Anthropic's own count when the model is
 * served by an Anthropic Messages API (the same body core/ai would send, so cache markers and
 * tools count too), else an estimate; a failed count falls back to the estimate rather than
 * breaking the client's view.
 */
export async function countInputTokens(model: Model, decoded: DecodedRequest, upstream: Upstream): Promise<number> {
  const estimate = estimateTokens(decoded.context);
  if (!WIRE_APIS[model.api].countsTokens) return estimate;
  const found = await upstream.credentials(model.provider);
  if (!found.ok) return estimate;
  const { stream: _stream, max_tokens: _max, ...body } = anthropicRequestBody(model, decoded.context, { thinking: decoded.thinking });
  const headers: Record<string, string> = { "content-type": "application/json", "anthropic-version": "2023-06-01", ...model.headers };
  const key = found.credentials[0]!.key;
  if (key) headers["x-api-key"] = key;
  try {
    const response = await fetch(`${model.baseUrl}/v1/messages/count_tokens`, { method: "POST", headers, body: JSON.stringify(body), signal: AbortSignal.timeout(COUNT_TIMEOUT_MS) });
    if (!response.ok) return estimate;
    const counted = ((await response.json()) as { input_tokens?: unknown }).input_tokens;
    return typeof counted === "number" ? counted : estimate;
  } catch {
    return estimate;
  }
}
