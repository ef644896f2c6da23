import { expect, test } from "bun:test";
import { type AppliedEvent, followSnapshots } from "../../../core/broker/follow.ts";

const snapshot = (generation: number) => ({ kind: "snapshot", generation, generatedAt: 1, serverNowMs: 1, refresher: { enabled: true, intervalMs: 1, skewMs: 1, nextSweepInMs: 1 }, credentials: [] });

test("a resync event from the broker reconnects at once, and the fresh snapshot replaces what was missed", async () => {
  let connections = 0;
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch() {
      connections++;
      const first = connections === 1;
      const frames = first ? [snapshot(1), { kind: "resync", generation: 7, reason: "this client fell behind" }] : [snapshot(8)];
      return new Response(frames.map((frame) => `data: ${JSON.stringify(frame)}\n\n`).join(""), { headers: { "content-type": "text/event-stream" } });
    },
  });
  const applied: AppliedEvent[] = [];
  // A long backoff: only the resync's immediate reconnect can bring the second snapshot in time.
  const follower = followSnapshots({ url: `http://127.0.0.1:${server.port}`, token: "t", cachePath: undefined, cacheTtlMs: 0 }, (event) => applied.push(event), { backoffMs: 10_000 });
  const deadline = Date.now() + 3000;
  while (applied.length < 2 && Date.now() < deadline) await Bun.sleep(20);
  follower.close();
  server.stop(true);
  expect(applied.map((event) => [event.kind, event.generation])).toEqual([
    ["snapshot", 1],
    ["snapshot", 8],
  ]);
});
