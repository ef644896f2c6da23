import type { SseEvent } from "../../http/sse.ts";
import { awsCredentials, awsRegion } from "./aws-credentials.ts";
import { readEventStream } from "./event-stream.ts";
import { signV4 } from "./sigv4.ts";
import type { ListedModel } from "../model-lists.ts";
import { type Transport, anthropicCloudBody, fillPlaceholder, getJson, withoutDirectAuth } from "./transport.ts";

const ANTHROPIC_VERSION = "bedrock-2023-05-31";

/** Bedrock's stream exceptions as the Anthropic error kinds the decoder knows how to retry. */
const EXCEPTION_KINDS: Record<string, string> = {
  throttlingException: "overloaded_error",
  serviceUnavailableException: "overloaded_error",
  modelNotReadyException: "overloaded_error",
  internalServerException: "api_error",
  modelStreamErrorException: "api_error",
};

/**
 * Amazon Bedrock. Claude through InvokeModelWithResponseStream: the Messages body without
 * `model` (the URL names it), signed with SigV4 for the `bedrock` service, or sent with a Bedrock
 * API key (AWS_BEARER_TOKEN_BEDROCK) as a bearer. The reply arrives in AWS's event-stream framing,
 * each `chunk` carrying one Anthropic stream event in base64. Every other model through
 * ConverseStream, whose events are named in the framing's headers.
 */
export const bedrockTransport: Transport = {
  async prepare(request, model, options) {
    const env = process.env;
    const region = awsRegion(env) ?? "us-east-1";
    let url: URL;
    let body: string;
    if (model.api === "anthropic-messages") {
      const base = fillPlaceholder(model.baseUrl, "region", region, "set AWS_REGION");
      url = new URL(`${base}/model/${encodeURIComponent(model.id)}/invoke-with-response-stream`);
      body = JSON.stringify(anthropicCloudBody(request.body, ANTHROPIC_VERSION, request.headers, false));
    } else if (model.api === "bedrock-converse") {
      url = new URL(fillPlaceholder(request.url, "region", region, "set AWS_REGION"));
      body = JSON.stringify(request.body);
    } else throw new Error(`${model.provider}: ${model.id} speaks ${model.api}, which Bedrock is not reached with; use an Anthropic model or set api: bedrock-converse`);
    const headers = { ...withoutDirectAuth(request.headers, ["anthropic-version", "anthropic-beta"]), accept: "application/vnd.amazon.eventstream" };
    if (options.apiKey) return { url: url.href, headers: { ...headers, authorization: `Bearer ${options.apiKey}` }, body };
    const credentials = await awsCredentials(env);
    return { url: url.href, headers: signV4({ method: "POST", url, headers, body, region, service: "bedrock", credentials }), body };
  },

  /** ListFoundationModels on the control-plane host (AWS_ENDPOINT_URL_BEDROCK overrides it): text models that stream. */
  async listModels(source, apiKey, signal) {
    const env = process.env;
    const region = awsRegion(env) ?? "us-east-1";
    const base = (env.AWS_ENDPOINT_URL_BEDROCK ?? env.AWS_ENDPOINT_URL ?? `https://bedrock.${region}.amazonaws.com`).replace(/\/+$/, "");
    const url = new URL(`${base}/foundation-models?byOutputModality=TEXT`);
    const headers = apiKey ? { authorization: `Bearer ${apiKey}` } : signV4({ method: "GET", url, headers: {}, body: "", region, service: "bedrock", credentials: await awsCredentials(env) });
    const body = await getJson(url.href, headers, signal);
    const out: ListedModel[] = [];
    for (const summary of (body.modelSummaries as Record<string, unknown>[] | undefined) ?? []) {
      if (typeof summary.modelId !== "string" || summary.responseStreamingSupported === false) continue;
      const api = summary.providerName === "Anthropic" ? "anthropic-messages" : "bedrock-converse";
      out.push({ id: summary.modelId, api, ...(typeof summary.modelName === "string" && { name: summary.modelName }) });
    }
    return out;
  },

  async *events(body) {
    const decoder = new TextDecoder();
    for await (const message of readEventStream(body)) {
      const type = message.headers[":message-type"];
      if (type === "exception" || type === "error") {
        const kind = String(message.headers[":exception-type"] ?? message.headers[":error-code"] ?? "exception");
        let text = decoder.decode(message.payload);
        try {
          text = (JSON.parse(text) as { message?: string }).message ?? text;
        } catch {
          // The payload is the message itself.
        }
        yield errorEvent(EXCEPTION_KINDS[kind] ?? "invalid_request_error", `${kind}: ${text}`);
        return;
      }
      const eventType = String(message.headers[":event-type"] ?? "");
      // Converse names each event in the header and sends its JSON as the payload.
      if (eventType !== "chunk") {
        yield { event: eventType, data: decoder.decode(message.payload) };
        continue;
      }
      const chunk = JSON.parse(decoder.decode(message.payload)) as { bytes?: string };
      if (typeof chunk.bytes !== "string") continue;
      const data = Buffer.from(chunk.bytes, "base64").toString("utf8");
      const event = (JSON.parse(data) as { type?: string }).type ?? "message";
      yield { event, data } satisfies SseEvent;
    }
  },
};

function errorEvent(kind: string, message: string): SseEvent {
  return { event: "error", data: JSON.stringify({ type: "error", error: { type: kind, message } }) };
}
