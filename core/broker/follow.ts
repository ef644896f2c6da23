import { parseSse } from "../http/sse.ts";
import type { BrokerClientConfig } from "./config.ts";
import { StreamEvent } from "./wire.ts";

/** What a follower hands on: the stream's own control events are handled here. */
export type AppliedEvent = Exclude<StreamEvent, { kind: "resync" }>;

export interface FollowOptions {
  /** First wait after a lost connection; doubles up to `maxBackoffMs` (default 1 s, 30 s). */
  backoffMs?: number;
  maxBackoffMs?: number;
  /** A stream silent this long is taken for dead (the broker sends keepalives every 20 s; default 75 s). */
  silenceMs?: number;
}

export interface Follower {
  close(): void;
}

/**
 * Keeps a `GET /v1/snapshot/stream` open and hands every event to `apply`. A lost connection is
 * retried after a growing pause (timers only: a broker that is down costs no CPU), and one that
 * went silent without closing (a host gone from the network) is dropped and retried too.
 */
export function followSnapshots(config: BrokerClientConfig, apply: (event: AppliedEvent) => void, options: FollowOptions = {}): Follower {
  const baseBackoff = options.backoffMs ?? 1000;
  const maxBackoff = options.maxBackoffMs ?? 30_000;
  const silenceMs = options.silenceMs ?? 75_000;
  let closed = false;
  let backoff = baseBackoff;
  let current: AbortController | undefined;
  let retry: ReturnType<typeof setTimeout> | undefined;

  async function connect(): Promise<void> {
    const abort = new AbortController();
    current = abort;
    let heard = Date.now();
    const watchdog = setInterval(() => {
      if (Date.now() - heard > silenceMs) abort.abort();
    }, Math.min(silenceMs, 15_000));
    watchdog.unref();
    try {
      const response = await fetch(`${config.url}/v1/snapshot/stream`, { headers: { authorization: `Bearer ${config.token}`, accept: "text/event-stream" }, signal: abort.signal });
      if (!response.ok || !response.body) return;
      // Every chunk counts as life, the keepalive comments the parser skips included.
      const heardFrom = new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          heard = Date.now();
          controller.enqueue(chunk);
        },
      });
      for await (const { data } of parseSse(response.body.pipeThrough(heardFrom))) {
        let event: StreamEvent;
        try {
          const parsed = StreamEvent.safeParse(JSON.parse(data));
          // An event of a kind this client does not know (a newer broker's) is passed over.
          if (!parsed.success) continue;
          event = parsed.data;
        } catch {
          continue;
        }
        if (event.kind === "snapshot") backoff = baseBackoff;
        if (event.kind === "resync") {
          // Reconnected at once: what was missed comes back whole in the next snapshot.
          backoff = 0;
          abort.abort();
          return;
        }
        apply(event);
      }
    } catch {
      // Refused, reset or aborted: retried below like a clean end.
    } finally {
      clearInterval(watchdog);
    }
  }

  function loop(): void {
    if (closed) return;
    void connect().then(() => {
      if (closed) return;
      retry = setTimeout(loop, backoff);
      // A process that is otherwise done exits while the broker is down.
      retry.unref();
      backoff = Math.min(Math.max(backoff * 2, baseBackoff), maxBackoff);
    });
  }

  loop();
  return {
    close() {
      closed = true;
      clearTimeout(retry);
      current?.abort();
    },
  };
}
