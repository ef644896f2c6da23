import { VERSION } from "../version.ts";
import { anthropicCodec } from "./anthropic.ts";
import { type BindAddress, bindUrl, boundAddress } from "../http/bind.ts";
import { declaredTooLarge } from "../http/body-limit.ts";
import { guardRequest, isJsonBody } from "../http/request-guard.ts";
import { type RouteHandler, Router } from "../http/router.ts";
import { chatCodec } from "./chat.ts";
import { type Codec, RequestError } from "./codec.ts";
import { failure } from "./errors.ts";
import { countInputTokens } from "./count-tokens.ts";
import { type Outcome, type UpstreamTimeouts, errorResponse, prepare, serveCompletion } from "./handler.ts";
import { Metrics } from "./metrics.ts";
import { responsesCodec } from "./responses.ts";
import { ResponseStore } from "./response-store.ts";
import { StickyCredentials } from "./sticky.ts";
import { presentedToken, tokenMatches } from "../http/bearer.ts";
import { tokenLabel } from "./token.ts";
import type { Upstream } from "./upstream.ts";
import type { UsageLog } from "../usage/usage-db.ts";

export interface GatewayOptions {
  bind: BindAddress;
  /** The bearer clients must present; undefined serves without auth (loopback only, checked by the caller). */
  token: string | undefined;
  upstream: Upstream;
  usage?: UsageLog;
  /** One line per request; no secrets, no prompt text. */
  log?: (line: string) => void;
  /** Web origins that may call (`--allow-origin`); browsers' requests are refused otherwise. */
  allowOrigins?: string[];
  /** Host names taken besides loopback names, IP literals and the bound name (`--allow-host`). */
  allowHosts?: string[];
  /** The largest request body (`--max-body`); default DEFAULT_MAX_BODY. */
  maxBodyBytes?: number;
  timeouts?: Partial<UpstreamTimeouts>;
}

/** Large enough for long conversations with a few images, small enough that many at once cannot exhaust memory. */
export const DEFAULT_MAX_BODY = 8 * 1024 * 1024;

/** The provider gets this long to answer, to start its reply, and to go on with it, before the client hears a timeout. */
export const DEFAULT_TIMEOUTS: UpstreamTimeouts = { connectMs: 30_000, firstByteMs: 300_000, idleMs: 300_000 };

export interface Gateway {
  /** Where clients on this machine reach it. */
  url: string;
  /** The address as bound (a wildcard stays a wildcard): what the banner shows. */
  address: string;
  port: number;
  metrics: Metrics;
  /** Stops taking requests and waits (up to `graceMs`) for running ones, streams included, to finish. */
  stop(graceMs?: number): Promise<void>;
}

const COMPLETIONS: Record<string, Codec> = {
  "/v1/chat/completions": chatCodec,
  "/v1/responses": responsesCodec,
  "/v1/messages": anthropicCodec,
};

/** Which format's envelope an error on this path goes out in. */
function codecForPath(path: string): Codec {
  return path.startsWith("/v1/messages") ? anthropicCodec : chatCodec;
}

/** `/chat/completions` and `/responses` also work without the `/v1` some clients leave off their base URL. */
function normalisePath(pathname: string): string {
  const path = pathname.length > 1 ? pathname.replace(/\/+$/, "") : pathname;
  if (path === "/chat/completions" || path === "/responses" || path === "/models" || path === "/messages" || path === "/messages/count_tokens" || path === "/embeddings") return `/v1${path}`;
  return path;
}

/** What a route needs besides the request: its id for error envelopes, and the client's label and log line. */
interface Call {
  requestId: string;
  client: string;
  finish: (outcome: Outcome) => void;
}

export function startGateway(options: GatewayOptions): Gateway {
  const metrics = new Metrics();
  const sticky = new StickyCredentials();
  const responses = new ResponseStore();
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY;
  const timeouts = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
  const guard = { allowOrigins: options.allowOrigins, allowHosts: options.allowHosts, boundHost: options.bind.hostname };

  const server = Bun.serve({
    hostname: options.bind.hostname,
    port: options.bind.port,
    // Bun's maximum; pings keep long streams well inside it.
    idleTimeout: 255,
    // Whatever escapes a handler still answers in OpenAI's envelope rather than Bun's HTML page.
    error: (error) => errorResponse(chatCodec, failure("api_error", `the gateway failed: ${error.message}`), "req_unknown"),
    async fetch(req) {
      const started = performance.now();
      const requestId = `req_${crypto.randomUUID().replaceAll("-", "").slice(0, 24)}`;
      const path = normalisePath(new URL(req.url).pathname);
      const presented = presentedToken(req.headers, { apiKeyHeader: true });
      const client = tokenLabel(options.token === undefined ? undefined : presented);
      let logged = false;
      const finish = (outcome: Outcome) => {
        if (logged) return;
        logged = true;
        const seconds = (performance.now() - started) / 1000;
        metrics.request(path, outcome.status, seconds);
        const usage = outcome.message?.usage;
        if (outcome.model && usage) {
          options.usage?.record(client, outcome.model.provider, outcome.model.id, usage, outcome.error !== undefined);
          metrics.tokensUsed(outcome.model.provider, outcome.model.id, "input", usage.input);
          metrics.tokensUsed(outcome.model.provider, outcome.model.id, "output", usage.output);
          metrics.tokensUsed(outcome.model.provider, outcome.model.id, "cache_read", usage.cacheRead);
          metrics.tokensUsed(outcome.model.provider, outcome.model.id, "cache_write", usage.cacheWrite);
        }
        log(
          JSON.stringify({
            time: new Date().toISOString(),
            id: requestId,
            method: req.method,
            path,
            status: outcome.status,
            ms: Math.round(seconds * 1000),
            client,
            model: outcome.model ? `${outcome.model.provider}/${outcome.model.id}` : undefined,
            credential: outcome.credential,
            input: usage ? usage.input + usage.cacheRead + usage.cacheWrite : undefined,
            output: usage?.output,
            error: outcome.error,
          }),
        );
      };
      const response = await route(req, path, presented, { requestId, client, finish });
      response.headers.set("x-request-id", requestId);
      response.headers.set("request-id", requestId);
      if (!logged && !(response.headers.get("content-type") ?? "").startsWith("text/event-stream")) finish({ status: response.status });
      return response;
    },
  });

  function completion(codec: Codec): RouteHandler<Call> {
    return async (req, _params, { requestId, finish }) => {
      metrics.active++;
      let done = false;
      const finishOnce = (outcome: Outcome) => {
        if (!done) metrics.active--;
        done = true;
        finish(outcome);
      };
      try {
        return await serveCompletion(codec, req, { upstream: options.upstream, timeouts, maxBodyBytes, sticky, responses, requestId, finish: finishOnce });
      } catch (error) {
        const f = failure("api_error", `the gateway failed: ${(error as Error).message}`);
        finishOnce({ status: 500, error: f.message });
        return errorResponse(codec, f, requestId);
      }
    };
  }

  const routes = new Router<Call>()
    .get("/v1/models", async () => Response.json(await modelList(options.upstream)))
    .get("/v1/usage", (_req, _params, { client }) => Response.json({ object: "list", client, data: options.usage?.rows() ?? [] }))
    .get("/metrics", () => new Response(metrics.render(), { headers: { "content-type": "text/plain; version=0.0.4" } }))
    .post("/v1/messages/count_tokens", (req, _params, { requestId }) => countTokens(req, requestId))
    .post("/v1/embeddings", async (req, _params, { requestId }) => (await import("./embeddings.ts")).serveEmbeddings(req, options.upstream, requestId));
  for (const [path, codec] of Object.entries(COMPLETIONS)) routes.post(path, completion(codec));

  async function route(req: Request, path: string, presented: string | undefined, call: Call): Promise<Response> {
    const { requestId } = call;
    const refused = guardRequest(req.headers, guard);
    if (refused) return errorResponse(codecForPath(path), failure("permission", refused.message), requestId);
    if (path === "/healthz" && req.method === "GET") return Response.json({ status: "ok", version: VERSION });
    if (options.token !== undefined && !tokenMatches(presented, options.token)) {
      const f = failure("authentication", "the gateway token is missing or wrong: send it as `Authorization: Bearer <token>` or `x-api-key` (`omp auth-gateway token` prints it)");
      return errorResponse(codecForPath(path), f, requestId);
    }
    if (req.method === "POST") {
      // A page can send text/plain or a form without asking first; only JSON needs a preflight it cannot pass.
      if (!isJsonBody(req.headers)) {
        return errorResponse(codecForPath(path), failure("unsupported_media", `the body must be JSON sent as \`content-type: application/json\`, not ${JSON.stringify(req.headers.get("content-type") ?? "nothing")}`), requestId);
      }
      const tooLarge = declaredTooLarge(req.headers, maxBodyBytes);
      if (tooLarge) return errorResponse(codecForPath(path), failure("too_large", `${tooLarge.message}; start the gateway with a larger --max-body to take it`), requestId);
    }
    const handler = routes.match(req.method, path);
    if (handler) return handler(req, call);
    return errorResponse(codecForPath(path), failure("not_found", `no endpoint ${req.method} ${path}`), requestId);
  }

  async function countTokens(req: Request, requestId: string): Promise<Response> {
    try {
      const { model, decoded } = await prepare(anthropicCodec, req, options.upstream, maxBodyBytes);
      return Response.json({ input_tokens: await countInputTokens(model, decoded, options.upstream) });
    } catch (error) {
      if (error instanceof RequestError) return errorResponse(anthropicCodec, error.failure, requestId);
      throw error;
    }
  }

  const port = server.port!;
  return {
    url: bindUrl({ hostname: options.bind.hostname, port }),
    address: boundAddress({ hostname: options.bind.hostname, port }),
    port,
    metrics,
    async stop(graceMs = 30_000) {
      server.stop(false);
      const deadline = Date.now() + graceMs;
      while (metrics.active > 0 && Date.now() < deadline) await Bun.sleep(50);
      await server.stop(true);
    },
  };
}

/**
 * OpenAI's list shape with Anthropic's fields too (`type`, `display_name`, `created_at`), so both
 * SDKs and Claude Code's model discovery read it. Ids are bare; a second provider's model of the
 * same id is listed as `provider/id`.
 */
async function modelList(upstream: Upstream): Promise<unknown> {
  const seen = new Set<string>();
  const created = Math.floor(Date.now() / 1000);
  const data = (await upstream.servableModels()).map((m) => {
    const id = seen.has(m.id) ? `${m.provider}/${m.id}` : m.id;
    seen.add(m.id);
    return { id, object: "model", type: "model", created, created_at: new Date(created * 1000).toISOString(), owned_by: m.provider, display_name: m.name };
  });
  return { object: "list", data, has_more: false, first_id: data[0]?.id ?? null, last_id: data[data.length - 1]?.id ?? null };
}
