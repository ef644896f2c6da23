import { anthropicFormat } from "./anthropic.ts";
import type { WireFormat } from "./format.ts";
import { googleFormat } from "./google.ts";
import { type ListedModel, type ListingStyle, anthropicListing, geminiListing, modelsListing, ollamaTags } from "./listings.ts";
import { openaiCompletionsFormat } from "./openai-completions.ts";
import { openaiResponsesFormat } from "./openai-responses.ts";
import { PrefixCheck } from "./prefix-check.ts";
import { type Fault, type Reply, type Turn, isFault } from "./script.ts";
import { applyStopSequences, stopSequencesOf } from "./stop-sequences.ts";
import { type CloudAccounts, CloudState, azureRefusal, bedrockFrames, bedrockRefusal, converseFrames, entraTokenAnswer, googleTokenAnswer, vertexRefusal } from "./cloud.ts";
import { CodeAssist, type Refusal, anthropicOAuthRefusal, codeAssistFormat, codexListing, codexListingRefusal, codexRefusal, copilotListing, copilotRefusal } from "./subscriptions.ts";

export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  /** Lower-cased names. */
  headers: Record<string, string>;
  /** Parsed JSON, or undefined for a body that is empty or not JSON. */
  body: any;
  /** The body as it arrived: a signature covers its bytes. */
  rawBody?: string;
  /** The wire format that answered, for POSTs. */
  format?: WireFormat["name"];
  /** Set when the stand-in refused the request before taking a turn (Anthropic's thinking prefix check): no reply serial. */
  refused?: boolean;
  /** Set when the client went away before the stand-in finished streaming. */
  disconnected?: boolean;
  /** When the request arrived and when its response was handed over (epoch ms, sub-ms precision), for benchmarks. */
  receivedAt: number;
  respondedAt?: number;
}

const now = () => performance.timeOrigin + performance.now();

export interface StandinOptions {
  script?: Turn[];
  /** Replay the script from the start when it runs out (benchmarks). */
  loop?: boolean;
  /** Zero-latency mode: each response is written in one piece, ignoring delays. */
  fast?: boolean;
  /** Served by GET /v1/models and Ollama's /api/tags. */
  models?: ListedModel[];
  listingStyle?: ListingStyle;
  /** Cloud accounts the stand-in plays (Bedrock, Vertex AI, Azure): what they accept. */
  cloud?: CloudAccounts;
  /** The API keys the stand-in takes; any other is refused with a 401 in the called API's shape, as the providers do. Unset: any key. */
  apiKeys?: string[];
}

/** The key a request presents, wherever its API puts it. */
function presentedKey(recorded: RecordedRequest): string | undefined {
  const bearer = /^Bearer (.+)$/.exec(recorded.headers.authorization ?? "")?.[1];
  return recorded.headers["x-api-key"] ?? recorded.headers["x-goog-api-key"] ?? recorded.query.key ?? bearer;
}

/** A refused key, as Anthropic, Gemini and OpenAI(-compatible) APIs answer it. */
function keyRefusal(recorded: RecordedRequest): Response {
  if (recorded.headers["anthropic-version"]) return Response.json({ type: "error", error: { type: "authentication_error", message: "invalid x-api-key" } }, { status: 401 });
  if (recorded.path.startsWith("/v1beta")) return Response.json({ error: { code: 400, message: "API key not valid. Please pass a valid API key.", status: "INVALID_ARGUMENT" } }, { status: 400 });
  return Response.json({ error: { message: "Incorrect API key provided.", type: "invalid_request_error", code: "invalid_api_key" } }, { status: 401 });
}

export interface Standin {
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  url: string;
  requests: RecordedRequest[];
  /** Google Code Assist's account state, behind `/v1internal` (GOOGLE_GEMINI_CLI_BASE_URL=url). */
  codeAssist: CodeAssist;
  /** The cloud accounts' state: the tokens Vertex's token endpoint minted. */
  cloud: CloudState;
  setScript(script: Turn[]): void;
  close(): Promise<void>;
}

const encoder = new TextEncoder();

/** What POST /v1/messages/count_tokens answers. */
export const COUNTED_TOKENS = 4321;

/**
 * A fake of the four provider APIs on loopback: each POST takes the next scripted turn and
 * answers it in the wire format of the endpoint that was called.
 */
export async function startStandin(options: StandinOptions = {}): Promise<Standin> {
  let script = [...(options.script ?? [])];
  let next = 0;
  let serial = 0;
  const requests: RecordedRequest[] = [];
  const prefixCheck = new PrefixCheck();
  const codeAssist = new CodeAssist();
  const cloud = new CloudState(options.cloud ?? {});

  const takeTurn = (): Turn | undefined => {
    if (next >= script.length) {
      if (!options.loop || script.length === 0) return undefined;
      next = 0;
    }
    return script[next++];
  };

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0,
    async fetch(req) {
      const seen: { recorded?: RecordedRequest } = {};
      const response = await answer(req, now(), seen);
      if (seen.recorded) seen.recorded.respondedAt = now();
      return response;
    },
  });

  async function answer(req: Request, receivedAt: number, seen: { recorded?: RecordedRequest }): Promise<Response> {
    const url = new URL(req.url);
    const path = url.pathname;
    const text = await req.text();
    let body: any;
    try {
      body = text === "" ? undefined : JSON.parse(text);
    } catch {
      body = undefined;
    }
    const recorded: RecordedRequest = {
      method: req.method,
      path,
      query: Object.fromEntries(url.searchParams),
      headers: Object.fromEntries([...req.headers].map(([k, v]) => [k.toLowerCase(), v])),
      body,
      rawBody: text,
      receivedAt,
    };
    requests.push(recorded);
    seen.recorded = recorded;

    if (options.apiKeys && !options.apiKeys.includes(presentedKey(recorded) ?? "")) return keyRefusal(recorded);

    const codeAssistAnswer = codeAssist.answer(recorded);
    if (codeAssistAnswer) return codeAssistAnswer;

    if (req.method === "GET" && path === "/foundation-models") {
      const refusal = bedrockRefusal(recorded, cloud);
      if (refusal) return Response.json(refusal.body, { status: refusal.status });
      const modelSummaries = (options.models ?? []).map((m) => ({ modelId: m.id, modelName: m.id, providerName: m.id.startsWith("anthropic.") ? "Anthropic" : "Amazon", outputModalities: ["TEXT"], responseStreamingSupported: true }));
      return Response.json({ modelSummaries });
    }
    if (req.method === "GET" && path === "/openai/v1/models") {
      const refusal = azureRefusal(recorded, cloud, false);
      return refusal ? Response.json(refusal.body, { status: refusal.status }) : Response.json(modelsListing(options.models ?? [], "openai"));
    }
    if (req.method === "GET") {
      if (path === "/v1/models" && recorded.headers["anthropic-version"]) return Response.json(anthropicListing(options.models ?? []));
      if (path === "/v1beta/models") return Response.json(geminiListing(options.models ?? []));
      if (path === "/v1/models" || path === "/models") return Response.json(modelsListing(options.models ?? [], options.listingStyle ?? "openai"));
      if (path === "/api/tags") return Response.json(ollamaTags(options.models ?? []));
      if (path === "/copilot-api/models") {
        const refusal = copilotRefusal(recorded);
        return refusal ? Response.json(refusal.body, { status: refusal.status }) : Response.json(copilotListing(options.models ?? []));
      }
      if (path === "/backend-api/codex/models") {
        const refusal = codexListingRefusal(recorded);
        return refusal ? Response.json(refusal.body, { status: refusal.status }) : Response.json(codexListing(options.models ?? []));
      }
      return new Response("not found", { status: 404 });
    }

    // Anthropic's token counter; a fixed count, so tests can tell it from an estimate.
    if (path === "/v1/messages/count_tokens") return Response.json({ input_tokens: COUNTED_TOKENS });
    if (path === "/token" && req.method === "POST") return googleTokenAnswer(new URLSearchParams(text), cloud, `${url.origin}/token`);
    const entra = /^\/([^/]+)\/oauth2\/v2\.0\/token$/.exec(path);
    if (entra && req.method === "POST") return entraTokenAnswer(decodeURIComponent(entra[1]!), new URLSearchParams(text), cloud);
    const route = routeOf(path) ?? cloudRouteOf(path, cloud);
    if (!route) return new Response(`stand-in: no endpoint ${req.method} ${path}`, { status: 404 });
    recorded.format = route.format.name;
    const refusal = route.check?.(recorded, codeAssist);
    if (refusal) {
      recorded.refused = true;
      return Response.json(refusal.body, { status: refusal.status });
    }
    if (route.format === anthropicFormat && route.framing !== "converse") {
      const refused = forcedToolWhileThinking(body) ?? prefixCheck.check(body);
      recorded.refused = refused !== undefined || undefined;
      if (refused) return Response.json(anthropicFormat.error(400, refused, "invalid_request_error"), { status: 400 });
    }
    const turn = takeTurn();
    if (!turn) {
      return Response.json(route.format.error(400, `stand-in: the script has no turn left for ${req.method} ${path}`, "standin_script_exhausted"), { status: 400 });
    }
    if (turn.delayMs && !options.fast) await Bun.sleep(turn.delayMs);
    if (isFault(turn)) return faultResponse(route.format, turn);
    const model = route.model ?? (typeof body?.model === "string" ? body.model : "standin-model");
    const context = { model, serial: ++serial };
    if (route.format === anthropicFormat && turn.thinking !== undefined) prefixCheck.issue(anthropicFormat.signature?.(context) ?? "", body);
    const reply = applyStopSequences(turn, stopSequencesOf(route.format.name, body));
    if (route.framing === "converse") return new Response(converseFrames(reply), { headers: { "content-type": "application/vnd.amazon.eventstream" } });
    if (route.framing === "bedrock") return new Response(bedrockFrames(route.format.events(reply, context)), { headers: { "content-type": "application/vnd.amazon.eventstream" } });
    return streamReply(route.format, reply, route.format.events(reply, context), options.fast ?? false, recorded);
  }

  return {
    url: `http://127.0.0.1:${server.port}`,
    requests,
    codeAssist,
    cloud,
    setScript(turns) {
      script = [...turns];
      next = 0;
    },
    close: () => server.stop(true),
  };
}

/** Anthropic's rule: a tool_choice that forces a tool call (any, tool) cannot be combined with thinking. */
function forcedToolWhileThinking(body: any): string | undefined {
  const thinking = body?.thinking?.type;
  const forced = body?.tool_choice?.type === "any" || body?.tool_choice?.type === "tool";
  if (forced && thinking !== undefined && thinking !== "disabled") return "Thinking may not be enabled when tool_choice forces tool use.";
  return undefined;
}

interface Route {
  format: WireFormat;
  model?: string;
  /** A subscription backend's rules: what it refuses before answering. */
  check?: (request: RecordedRequest, codeAssist: CodeAssist) => Refusal | undefined;
  /** Bedrock's event-stream framing instead of SSE: InvokeModel's chunks, or Converse's named events. */
  framing?: "bedrock" | "converse";
}

/** The cloud accounts' endpoints, under the paths their real hosts use. */
function cloudRouteOf(path: string, cloud: CloudState): Route | undefined {
  const bedrock = /^\/model\/([^/]+)\/invoke-with-response-stream$/.exec(path);
  if (bedrock) return { format: anthropicFormat, model: decodeURIComponent(bedrock[1]!), framing: "bedrock", check: (request) => bedrockRefusal(request, cloud) };
  // Converse has no SSE twin among the formats: the reply is framed straight from the script. The
  // Anthropic format stands in for its errors, which Bedrock sends as JSON bodies all the same.
  const converse = /^\/model\/([^/]+)\/converse-stream$/.exec(path);
  if (converse) return { format: anthropicFormat, model: decodeURIComponent(converse[1]!), framing: "converse", check: (request) => bedrockRefusal(request, cloud, true) };
  const vertex = /^\/v1\/projects\/([^/]+)\/locations\/([^/]+)\/publishers\/(google|anthropic)\/models\/([^/:]+):(streamGenerateContent|streamRawPredict)$/.exec(path);
  if (vertex) {
    const [, project, location, publisher, model] = vertex;
    const check = (request: RecordedRequest) => vertexRefusal(request, cloud, publisher!, decodeURIComponent(project!), decodeURIComponent(location!));
    return { format: publisher === "google" ? googleFormat : anthropicFormat, model: decodeURIComponent(model!), check };
  }
  const deployment = /^\/openai\/deployments\/([^/]+)\/chat\/completions$/.exec(path);
  if (deployment) return { format: openaiCompletionsFormat, model: decodeURIComponent(deployment[1]!), check: (request) => azureRefusal(request, cloud, true) };
  if (path === "/openai/responses") return { format: openaiResponsesFormat, check: (request) => azureRefusal(request, cloud, true) };
  if (path === "/openai/v1/responses") return { format: openaiResponsesFormat, check: (request) => azureRefusal(request, cloud, false) };
  if (path === "/openai/v1/chat/completions") return { format: openaiCompletionsFormat, check: (request) => azureRefusal(request, cloud, false) };
  if (path === "/anthropic/v1/messages") return { format: anthropicFormat, check: (request) => azureRefusal(request, cloud, false) };
  return undefined;
}

/** The public APIs at their paths; the subscription backends under the paths their real hosts use. */
function routeOf(path: string): Route | undefined {
  if (path === "/v1/messages") return { format: anthropicFormat, check: anthropicOAuthRefusal };
  if (path === "/backend-api/codex/responses") return { format: openaiResponsesFormat, check: codexRefusal };
  if (path === "/copilot-api/chat/completions") return { format: openaiCompletionsFormat, check: copilotRefusal };
  if (path === "/v1internal:streamGenerateContent") return { format: codeAssistFormat, check: (request, codeAssist) => codeAssist.refusal(request) };
  if (path === "/v1/chat/completions" || path === "/chat/completions") return { format: openaiCompletionsFormat };
  if (path === "/v1/responses" || path === "/responses") return { format: openaiResponsesFormat };
  const gemini = /^\/v1beta\/models\/([^/:]+):streamGenerateContent$/.exec(path);
  if (gemini) return { format: googleFormat, model: decodeURIComponent(gemini[1]!) };
  return undefined;
}

function faultResponse(format: WireFormat, fault: Fault): Response {
  const headers: Record<string, string> = {};
  if (fault.retryAfter !== undefined) headers["retry-after"] = String(fault.retryAfter);
  if (fault.retryAfterMs !== undefined) headers["retry-after-ms"] = String(fault.retryAfterMs);
  if (fault.overloaded) {
    const { status, message, kind } = format.overloaded;
    return Response.json(format.error(status, fault.message ?? message, fault.kind ?? kind), { status, headers });
  }
  const status = fault.status ?? 400;
  const body = fault.errorBody !== undefined ? fault.errorBody : format.error(status, fault.message, fault.kind);
  return Response.json(body, { status, headers });
}

function streamReply(format: WireFormat, reply: Reply, events: string[], fast: boolean, recorded: RecordedRequest): Response {
  const cut = reply.cutAfterEvents;
  let sent = cut === undefined ? events : events.slice(0, cut);
  if (reply.streamErrorAfterEvents !== undefined) {
    const error = reply.streamError ?? {};
    sent = [...sent.slice(0, reply.streamErrorAfterEvents), format.streamError(error.message ?? format.overloaded.message, error.kind ?? format.overloaded.kind)];
  }
  const headers = { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", ...reply.headers };
  if (fast && cut === undefined) return new Response(sent.join(""), { headers });

  const stream = new ReadableStream<Uint8Array>({
    async start(controller) {
      for (const [i, event] of sent.entries()) {
        if (i > 0 && reply.eventDelayMs && !fast) await Bun.sleep(reply.eventDelayMs);
        if (i > 0 && i === reply.pauseAfterEvents && reply.pauseMs && !fast) await Bun.sleep(reply.pauseMs);
        if (recorded.disconnected) return;
        controller.enqueue(encoder.encode(event));
      }
      if (cut !== undefined && reply.cutMode === "reset") {
        // Let the last event reach the client before the connection breaks.
        await Bun.sleep(10);
        // Without a reason: Bun logs an Error passed here as if the server had crashed.
        controller.error(undefined);
      } else controller.close();
    },
    cancel() {
      recorded.disconnected = true;
    },
  });
  return new Response(stream, { headers });
}
