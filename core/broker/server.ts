import { REMOTE_REFRESH_SENTINEL, type StoredCredential } from "../auth/credential.ts";
import { REFRESH_SKEW_MS, describeAccount, freshCredential, needsRefresh } from "../auth/fresh.ts";
import type { CredentialStore } from "../auth/store.ts";
import type { ZodError } from "zod";
import { OmpError, describeError } from "../errors/omp-error.ts";
import { bindUrl, boundAddress } from "../http/bind.ts";
import { BodyTooLarge, readLimitedText } from "../http/body-limit.ts";
import { presentedToken, tokenMatches } from "../http/bearer.ts";
import { guardRequest } from "../http/request-guard.ts";
import { type RouteHandler, Router } from "../http/router.ts";
import { SSE_KEEPALIVE, sseFrame } from "../http/sse.ts";
import { recordUsageLimit, usageReports } from "./usage.ts";
import { BlockBody, DisableBody, PostCredentialBody, type Snapshot, type SnapshotEntry, errorBody } from "./wire.ts";
import { describeZodError } from "../errors/zod-issues.ts";

export interface BrokerOptions {
  store: CredentialStore;
  hostname: string;
  port: number;
  token: string;
  version: string;
  /** Background refresh sweep (default 60 s) and how close to expiry it refreshes (default 5 min). */
  intervalMs?: number;
  skewMs?: number;
  /** SSE keepalive comments (default 20 s). */
  keepaliveMs?: number;
  /** How often the vault is checked for changes made by other processes (a second broker, a local login). */
  watchMs?: number;
  log?: (line: string) => void;
  env?: Record<string, string | undefined>;
  /** PEM certificate and key: served over HTTPS. */
  tls?: { cert: string; key: string };
  /** Host names taken besides loopback names, IP literals and the bound name (`--allow-host`). */
  allowHosts?: string[];
}

export interface Broker {
  /** Where clients on this machine reach it. */
  url: string;
  /** The address as bound (a wildcard stays a wildcard): what the banner shows. */
  address: string;
  /** Runs one refresh sweep now. */
  sweep(): Promise<void>;
  stop(): Promise<void>;
}

/** The largest request body: a credential is a few KB, so anything near this is not one. */
export const MAX_BROKER_BODY = 64 * 1024;
/** What one stream subscriber may have waiting unread before it is dropped and told to resync. */
export const SUBSCRIBER_QUEUE_BYTES = 256 * 1024;

const encoder = new TextEncoder();

/**
 * `omp auth-broker serve`: owns the vault, refreshes OAuth logins before they expire and serves the
 * credentials to omp clients over HTTP. Refresh tokens never leave it (snapshots carry a sentinel).
 * Several brokers may share one vault: refreshes go through the vault's lease rows, and each
 * broker notices the others' changes when it next looks at the vault.
 */
export function startBroker(options: BrokerOptions): Broker {
  const { store } = options;
  const intervalMs = options.intervalMs ?? 60_000;
  const skewMs = options.skewMs ?? REFRESH_SKEW_MS;
  const log = options.log ?? (() => {});
  let generation = 0;
  let nextSweepAt = Date.now() + intervalMs;
  const known = new Map<number, string>();
  /** Open streams and their keepalive timers (stopped with the broker, or a SIGTERM would wait for the next tick to exit). */
  const streams = new Map<ReadableStreamDefaultController<Uint8Array>, ReturnType<typeof setInterval>>();

  const refresher = () => ({ enabled: true, intervalMs, skewMs, nextSweepInMs: Math.max(0, nextSweepAt - Date.now()) });

  function entryOf(row: StoredCredential, blocks: Map<number, number>): SnapshotEntry {
    const credential = row.credential.type === "oauth" ? { ...row.credential, refresh: REMOTE_REFRESH_SENTINEL } : row.credential;
    const until = blocks.get(row.id);
    return {
      id: row.id,
      provider: row.provider,
      credential,
      identityKey: row.identityKey,
      rotatesInMs: row.credential.type === "oauth" ? Math.max(0, row.credential.expires - skewMs - Date.now()) : null,
      ...(until ? { blocks: [{ providerKey: row.provider, blockScope: "usage", blockedUntilMs: until }] } : {}),
    };
  }

  function snapshot(): Snapshot {
    const blocks = store.blocks();
    return { generation, generatedAt: Date.now(), serverNowMs: Date.now(), refresher: refresher(), credentials: store.active().map((row) => entryOf(row, blocks)) };
  }

  /** Stops a stream's keepalive and forgets it. */
  function forget(stream: ReadableStreamDefaultController<Uint8Array>): void {
    clearInterval(streams.get(stream));
    streams.delete(stream);
  }

  /**
   * Queues an event for every subscriber. One that has not read what it was sent before (a stalled
   * network, a stopped process) is not given more: it gets a `resync` event and the stream ends,
   * so memory per subscriber stays bounded, and the client reconnects for a fresh snapshot.
   */
  function broadcast(event: Record<string, unknown>): void {
    const bytes = encoder.encode(sseFrame(event));
    for (const stream of streams.keys()) {
      try {
        const queued = SUBSCRIBER_QUEUE_BYTES - (stream.desiredSize ?? 0);
        if (queued + bytes.length > SUBSCRIBER_QUEUE_BYTES * 2) {
          stream.enqueue(encoder.encode(sseFrame({ kind: "resync", generation, reason: "this client fell behind the broker's changes" })));
          stream.close();
          forget(stream);
          log("dropped a snapshot stream that stopped reading; its client resyncs");
          continue;
        }
        stream.enqueue(bytes);
      } catch {
        forget(stream);
      }
    }
  }

  /** Compares the vault with what clients were last told and sends them the difference. */
  function publishChanges(): void {
    const blocks = store.blocks();
    const seen = new Set<number>();
    for (const row of store.active()) {
      seen.add(row.id);
      const entry = entryOf(row, blocks);
      const { rotatesInMs: _moving, ...stable } = entry;
      const signature = JSON.stringify(stable);
      if (known.get(row.id) === signature) continue;
      known.set(row.id, signature);
      generation++;
      broadcast({ kind: "entry", generation, serverNowMs: Date.now(), refresher: refresher(), entry });
    }
    for (const id of known.keys()) {
      if (seen.has(id)) continue;
      known.delete(id);
      generation++;
      broadcast({ kind: "removed", generation, serverNowMs: Date.now(), refresher: refresher(), id });
    }
  }

  async function sweep(): Promise<void> {
    nextSweepAt = Date.now() + intervalMs;
    for (const row of store.active()) {
      if (row.credential.type !== "oauth" || row.credential.expires - Date.now() >= skewMs) continue;
      try {
        await freshCredential(store, row, { env: options.env });
        log(`refreshed ${row.provider} ${describeAccount(row)}`);
      } catch (error) {
        log(`refresh of ${row.provider} ${describeAccount(row)} failed: ${describeError(error)}`);
      }
    }
    publishChanges();
  }

  const json = (body: unknown, status = 200) => Response.json(body, { status });

  /** The body checked against its wire schema, or the 400 that names what was wrong. */
  async function readBody<T>(request: Request, schema: { safeParse(value: unknown): { success: true; data: T } | { success: false; error: ZodError } }): Promise<{ ok: true; value: T } | { ok: false; response: Response }> {
    let value: unknown;
    try {
      const text = await readLimitedText(request, MAX_BROKER_BODY);
      value = text.trim() === "" ? {} : JSON.parse(text);
    } catch (error) {
      if (error instanceof BodyTooLarge) return { ok: false, response: json(errorBody(`${error.message}; a credential is a few KB`, "too_large"), 413) };
      return { ok: false, response: json(errorBody("the body is not JSON", "invalid_body"), 400) };
    }
    const parsed = schema.safeParse(value);
    if (!parsed.success) return { ok: false, response: json(errorBody(`invalid body: ${describeZodError(parsed.error, "body")}`, "invalid_body"), 400) };
    return { ok: true, value: parsed.data };
  }

  function stream(): Response {
    let controller!: ReadableStreamDefaultController<Uint8Array>;
    let keepalive: ReturnType<typeof setInterval> | undefined;
    const body = new ReadableStream<Uint8Array>(
      {
        start(c) {
          controller = c;
          c.enqueue(encoder.encode(sseFrame({ kind: "snapshot", ...snapshot() })));
          keepalive = setInterval(() => {
            try {
              c.enqueue(encoder.encode(SSE_KEEPALIVE));
            } catch {
              clearInterval(keepalive);
            }
          }, options.keepaliveMs ?? 20_000);
          streams.set(c, keepalive);
        },
        cancel() {
          streams.delete(controller);
          clearInterval(keepalive);
        },
      },
      new ByteLengthQueuingStrategy({ highWaterMark: SUBSCRIBER_QUEUE_BYTES }),
    );
    return new Response(body, { headers: { "content-type": "text/event-stream", "cache-control": "no-store", connection: "keep-alive" } });
  }

  /** The credential a `/v1/credential/:id/…` request names, or the 404 for it. */
  function credentialRoute(handle: (request: Request, row: StoredCredential) => Promise<Response>): RouteHandler<undefined> {
    return (request, params) => {
      const id = /^\d+$/.test(params.id!) ? Number(params.id) : undefined;
      if (id === undefined) return notFound(request);
      const row = store.byId(id);
      if (!row) return json(errorBody(`no active credential ${id}`, "credential_not_found", { id }), 404);
      return handle(request, row);
    };
  }

  const notFound = (request: Request) => json(errorBody(`no endpoint ${request.method} ${new URL(request.url).pathname}`, "not_found"), 404);

  const routes = new Router()
    .get("/v1/snapshot", () => json(snapshot()))
    .get("/v1/snapshot/stream", () => stream())
    .get("/v1/usage", () => json(usageReports(store)))
    .post("/v1/credential", async (request) => {
      const parsed = await readBody(request, PostCredentialBody);
      if (!parsed.ok) return parsed.response;
      const stored = store.upsert(parsed.value.provider, parsed.value.credential);
      log(`stored ${stored.provider} ${describeAccount(stored)}`);
      publishChanges();
      return json({ entries: [entryOf(stored, store.blocks())] });
    })
    .post(
      "/v1/credential/:id/disable",
      credentialRoute(async (request, row) => {
        const parsed = await readBody(request, DisableBody);
        if (!parsed.ok) return parsed.response;
        store.disable(row.id, parsed.value.cause ?? "disabled through the auth broker");
        log(`disabled ${row.provider} ${describeAccount(row)}`);
        publishChanges();
        return json({ ok: true });
      }),
    )
    .post(
      "/v1/credential/:id/block",
      credentialRoute(async (request, row) => {
        const parsed = await readBody(request, BlockBody);
        if (!parsed.ok) return parsed.response;
        recordUsageLimit(store, row, parsed.value.providerKey ?? row.provider, parsed.value.untilMs);
        log(`${row.provider} ${describeAccount(row)} reached a usage limit; blocked until ${new Date(parsed.value.untilMs).toISOString()}`);
        publishChanges();
        return json({ ok: true });
      }),
    )
    .post(
      "/v1/credential/:id/refresh",
      credentialRoute(async (_request, row) => {
        // Refreshed only when it is due: fifty clients that all saw the same expired token cause one refresh.
        if (row.credential.type !== "oauth" || !needsRefresh(row.credential)) return json({ entry: entryOf(row, store.blocks()) });
        try {
          const fresh = await freshCredential(store, row, { env: options.env });
          publishChanges();
          return json({ entry: entryOf(fresh, store.blocks()) });
        } catch (error) {
          publishChanges();
          const gone = store.byId(row.id) === undefined;
          return json(errorBody(describeError(error), gone ? "credential_disabled" : "refresh_failed", { id: row.id }), gone ? 410 : 502);
        }
      }),
    );

  async function route(request: Request): Promise<Response> {
    const path = new URL(request.url).pathname;
    const refused = guardRequest(request.headers, { allowHosts: options.allowHosts, boundHost: options.hostname });
    if (refused) return json(errorBody(refused.message, "forbidden"), refused.status);
    if (request.method === "GET" && path === "/v1/healthz") return json({ ok: true, version: options.version });
    if (!tokenMatches(presentedToken(request.headers), options.token)) return json(errorBody("missing or wrong bearer token", "unauthorized"), 401);
    const handler = routes.match(request.method, path);
    return handler ? handler(request, undefined) : notFound(request);
  }

  let server: ReturnType<typeof Bun.serve>;
  try {
    server = Bun.serve({
      hostname: options.hostname,
      port: options.port,
      idleTimeout: 0,
      ...(options.tls ? { tls: options.tls } : {}),
      fetch: (request) =>
        route(request).catch((error) => {
          log(`internal error: ${describeError(error)}`);
          return json(errorBody("internal error", "internal"), 500);
        }),
    });
  } catch (error) {
    throw new OmpError(`cannot listen on ${options.hostname}:${options.port}: ${describeError(error)}`);
  }
  for (const row of store.active()) {
    const { rotatesInMs: _moving, ...stable } = entryOf(row, store.blocks());
    known.set(row.id, JSON.stringify(stable));
  }
  const sweepTimer = setInterval(() => void sweep(), intervalMs);
  const watchTimer = setInterval(publishChanges, options.watchMs ?? 1000);
  void sweep();

  return {
    url: bindUrl({ hostname: options.hostname, port: server.port! }, options.tls ? "https" : "http"),
    address: boundAddress({ hostname: options.hostname, port: server.port! }, options.tls ? "https" : "http"),
    sweep,
    async stop() {
      clearInterval(sweepTimer);
      clearInterval(watchTimer);
      for (const [controller, timer] of streams) {
        clearInterval(timer);
        try {
          controller.close();
        } catch {
          // Already closed by its client.
        }
      }
      streams.clear();
      await server.stop(true);
    },
  };
}
