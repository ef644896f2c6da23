import { AssistantBuilder } from "../../assistant-builder.ts";
import { type StreamDecoder, eventJson, requestHeaders, runProviderStream } from "../../http/provider-stream.ts";
import type { SseEvent } from "../../../http/sse.ts";
import type { Model } from "../../model.ts";
import type { AssistantEvent, Context, StreamFunction, StreamOptions } from "../../stream.ts";
import { GoogleDecoder, googleRequestBody } from "../google-generative-ai/stream.ts";
import { parseCodeAssistKey } from "./key.ts";

type Json = Record<string, unknown>;

/** The headers Gemini CLI's Code Assist client sends besides the token. */
export const CODE_ASSIST_HEADERS = {
  "user-agent": "google-cloud-sdk vscode_cloudshelleditor/0.1",
  "x-goog-api-client": "gl-node/22.17.0",
  "client-metadata": JSON.stringify({ ideType: "IDE_UNSPECIFIED", platform: "PLATFORM_UNSPECIFIED", pluginType: "GEMINI" }),
};

/**
 * Code Assist (`cloudcode-pa.googleapis.com/v1internal`) takes the Gemini API's request inside an
 * envelope naming the model and the user's project, and wraps each streamed chunk in `response`.
 */
export function codeAssistRequestBody(model: Model, context: Context, projectId: string, options: StreamOptions = {}): Json {
  const request = googleRequestBody(model, context, options);
  if (options.sessionId) request.session_id = options.sessionId;
  return { model: model.id, project: projectId, user_prompt_id: crypto.randomUUID(), request };
}

class CodeAssistDecoder implements StreamDecoder {
  private readonly inner: GoogleDecoder;

  constructor(
    private readonly provider: string,
    out: AssistantBuilder,
  ) {
    this.inner = new GoogleDecoder(provider, out);
  }

  get complete(): boolean {
    return this.inner.complete;
  }

  handle(event: SseEvent): "continue" | "end" {
    const data = eventJson(this.provider, event);
    // Errors come unwrapped; chunks come as {response: <a Gemini API chunk>, traceId}.
    const payload = data.error !== undefined ? data : (data.response as Json | undefined);
    if (payload === undefined) return "continue";
    return this.inner.handle({ ...event, data: JSON.stringify(payload) });
  }
}

export const streamGeminiCli: StreamFunction = (model, context, options = {}) => {
  const key = parseCodeAssistKey(options.apiKey);
  if (!key) return refused(model, `${model.provider}: the credential names no Code Assist project; log in again with \`omp auth login google-gemini-cli\``);
  return runProviderStream(model, options, {
    request: {
      url: `${model.baseUrl}/v1internal:streamGenerateContent?alt=sse`,
      headers: requestHeaders({ authorization: `Bearer ${key.token}`, ...CODE_ASSIST_HEADERS }, model, options),
      body: codeAssistRequestBody(model, context, key.projectId, options),
    },
    decoder: (out) => new CodeAssistDecoder(model.provider, out),
  });
};

async function* refused(model: Model, reason: string): AsyncGenerator<AssistantEvent> {
  const builder = new AssistantBuilder(model);
  yield { type: "start", partial: builder.message };
  builder.fail("error", reason);
  yield { type: "error", message: builder.message };
}
