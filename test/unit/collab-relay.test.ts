// The relay's pieces in process: the per-connection rate bucket, the room limit's refusal, the
// routing prefix the relay reads and the idle timeout, on startRelay (the e2e tests run the rest
// through dist/omp).
import { afterAll, describe, expect, test } from "bun:test";
import { startRelay } from "../../core/collab/relay-server.ts";
import { RateBucket } from "../../core/collab/relay-limits.ts";
import { RelayClient, rawGuest, waitUntil } from "../support/relay-client.ts";

const lines: string[] = [];
const relay = startRelay({ bind: { hostname: "127.0.0.1", port: 0 }, limits: { maxRooms: 1 }, log: (line) => lines.push(line) });
afterAll(() => relay.stop());

describe("relay", () => {
  test("a rate bucket lets a burst of twice the rate through, then refuses until time refills it", () => {
    let clock = 0;
    const bucket = new RateBucket(1000, () => clock);
    let passed = 0;
    while (bucket.take()) passed++;
    expect(passed).toBe(2000);
    expect(bucket.take()).toBe(false);
    clock += 5;
    for (let i = 0; i < 5; i++) expect(bucket.take()).toBe(true);
    expect(bucket.take()).toBe(false);
  });

  test("past --max-rooms a new room is refused with 503 while the open one still takes guests; the room's slot frees when it empties", async () => {
    const first = await RelayClient.connect(relay.url, "room-one-0000", "host");
    const refused = await fetch(`${relay.url}/r/room-two-0000?role=guest`, { headers: { upgrade: "websocket", connection: "upgrade" } });
    expect(refused.status).toBe(503);
    expect(await refused.text()).toContain("limit of 1 rooms");
    const guest = await RelayClient.connect(relay.url, "room-one-0000", "guest");
    guest.close();
    first.close();
    await first.whenClosed();
    const deadline = Date.now() + 10_000;
    while (((await (await fetch(`${relay.url}/healthz`)).json()) as { rooms: number }).rooms !== 0 && Date.now() < deadline) await Bun.sleep(10);
    const next = await RelayClient.connect(relay.url, "room-two-0000", "host");
    next.close();
    expect(lines.some((line) => line.includes('"status":503'))).toBe(true);
  });

  test("a host's frame shorter than its peer prefix closes it with the reason; a request without the upgrade gets 426", async () => {
    const host = await RelayClient.connect(relay.url, "room-three-00", "host");
    host.send(new Uint8Array([1, 2]));
    const closed = await host.whenClosed();
    expect(closed.code).toBe(1002);
    expect(closed.reason).toContain("4-byte peer");
    expect((await fetch(`${relay.url}/r/room-three-00?role=host`)).status).toBe(426);
    expect((await fetch(`${relay.url}/r/room-three-00?role=boss`)).status).toBe(400);
  });

  test("a guest that answers no ping is closed after the idle timeout (Bun counts it in steps of a few seconds)", async () => {
    const idle: string[] = [];
    const quick = startRelay({ bind: { hostname: "127.0.0.1", port: 0 }, limits: { idleSeconds: 1 }, log: (line) => idle.push(line) });
    const silent = rawGuest(quick.port, "idle-room-000");
    // It reads (so it sees the relay hang up) but never answers a ping: a raw socket, not a WebSocket client.
    silent.on("data", () => {});
    await new Promise<void>((resolve) => silent.once("close", () => resolve()));
    const line = await waitUntil(() => idle.find((entry) => entry.includes('"event":"disconnect"')));
    expect(line).toContain('"role":"guest"');
    await quick.stop();
  }, 60_000);
});
