import type { SseEvent } from "../http/sse.ts";
import { awsCredentials, awsRegion } from "./aws-credentials.ts";
import { readEventStream } from "./event-stream.ts";
import { signV4 } from "./sigv4.ts";
import { type Transport, anthropicCloudBody, fillPlaceholder, withoutDirectAuth } from "./transport.ts";

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
 * Amazon Bedrock's InvokeModelWithResponseStream for Anthropic models: the Messages body without
 * `model` (the URL names it), signed with SigV4 for the `bedrock` service, or sent with a Bedrock
 * API key (AWS_BEARER_TOKEN_BEDROCK) as a bearer. The reply arrives in AWS's event-stream framing,
 * each `chunk` carrying one Anthropic stream event in base64.
 */
export const bedrockTransport: Transport = {
  async prepare(request, model, options) {
    if (model.api !== "anthropic-messages") throw new Error(`${model.provider}: ${model.id} speaks ${model.api}; Bedrock is reached with Anthropic models here`);
    const env = process.env;
    const region = awsRegion(env) ?? "us-east-1";
    const base = fillPlaceholder(model.baseUrl, "region", region, "set AWS_REGION");
    const url = new URL(`${base}/model/${encodeURIComponent(model.id)}/invoke-with-response-stream`);
    const body = JSON.stringify(anthropicCloudBody(request.body, ANTHROPIC_VERSION, request.headers, false));
    const headers = { ...withoutDirectAuth(request.headers, ["anthropic-version", "anthropic-beta"]), accept: "application/vnd.amazon.eventstream" };
    if (options.apiKey) return { url: url.href, headers: { ...headers, authorization: `Bearer ${options.apiKey}` }, body };
    const credentials = await awsCredentials(env);
    return { url: url.href, headers: signV4({ method: "POST", url, headers, body, region, service: "bedrock", credentials }), body };
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
      if (message.headers[":event-type"] !== "chunk") continue;
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
