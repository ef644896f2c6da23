/**
 * A collab guest's lag behind the host through `omp relay serve` (dist/omp) on loopback
 * (`bun bench/collab.ts`): the host seals a HostMessage event and sends it through the relay; the
 * lag ends when a guest has opened it and parsed it. Streamed text deltas at a model's pace to 1 and
 * 10 guests, and 64 KB tool results. Writes bench/results/collab.json and collab.md.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join, resolve } from "node:path";
import { importRoomKey } from "../core/collab/crypto.ts";
import { openJson } from "../core/collab/sealed-json.ts";
import { newRoom } from "../core/collab/link.ts";
import { HostMessage } from "../core/collab/messages.ts";
import { RelayClient, SealedHost } from "../test/support/relay-client.ts";
import { median, now, percentile, round } from "./stats.ts";

const ROOT = resolve(import.meta.dir, "..");
const OMP = process.env.OMP_BIN ?? join(ROOT, "dist", "omp");
const WORK = join(ROOT, "bench", "work", "collab");
const RESULTS = join(ROOT, "bench", "results");

interface Scenario {
  name: string;
  guests: number;
  events: number;
  /** Between two events, in ms: a model streams some 50-100 deltas a second. */
  everyMs: number;
  payloadBytes: number;
}

const SCENARIOS: Scenario[] = [
  { name: "text deltas (40 B), 1 guest, 100/s", guests: 1, events: 500, everyMs: 10, payloadBytes: 40 },
  { name: "text deltas (40 B), 10 guests, 100/s", guests: 10, events: 500, everyMs: 10, payloadBytes: 40 },
  { name: "tool results (64 KB), 1 guest, 20/s", guests: 1, events: 100, everyMs: 50, payloadBytes: 64 * 1024 },
];

async function startRelay(): Promise<{ url: string; pid: number; stop: () => void }> {
  const home = join(WORK, "home");
  mkdirSync(home, { recursive: true });
  const child = Bun.spawn([OMP, "relay", "serve", "--port", "0"], { cwd: home, env: { PATH: process.env.PATH ?? "", HOME: home }, stdin: "ignore", stdout: "ignore", stderr: "pipe" });
  const reader = (child.stderr as ReadableStream<Uint8Array>).getReader();
  let text = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the relay did not start: ${text}`);
    text += new TextDecoder().decode(value);
    const url = /listening on (http:\/\/\S+)/.exec(text)?.[1];
    if (url) {
      // Keep reading its log, as a terminal would.
      void (async () => {
        while (!(await reader.read()).done);
      })().catch(() => {});
      return { url, pid: child.pid, stop: () => child.kill("SIGTERM") };
    }
  }
}

const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) / 1024;

async function run(relayUrl: string, scenario: Scenario): Promise<number[]> {
  const link = newRoom(relayUrl);
  const key = await importRoomKey(link.key);
  const host = await SealedHost.connect(relayUrl, link);
  const sentAt = new Map<number, number>();
  const lags: number[] = [];
  const guests = await Promise.all(Array.from({ length: scenario.guests }, () => RelayClient.connect(relayUrl, link.roomId, "guest")));
  let expected = scenario.events * scenario.guests;
  const done = new Promise<void>((resolve) => {
    for (const guest of guests) {
      guest.socket.addEventListener("message", async (event) => {
        if (typeof event.data === "string") return;
        const message = await openJson(key, link.roomId, new Uint8Array(event.data as ArrayBuffer), HostMessage);
        if (message?.type !== "event") return;
        const index = Number((message.event.assistantMessageEvent as { delta: string }).delta.slice(0, 8));
        lags.push(now() - sentAt.get(index)!);
        if (--expected === 0) resolve();
      });
    }
  });
  await Promise.all(guests.map(() => host.client.notice((n) => n.t === "join")));
  const filler = "x".repeat(scenario.payloadBytes - 8);
  for (let i = 0; i < scenario.events; i++) {
    sentAt.set(i, now());
    await host.send(0, { type: "event", event: { type: "message_update", assistantMessageEvent: { type: "text_delta", contentIndex: 0, delta: `${String(i).padStart(8, "0")}${filler}` } } });
    await Bun.sleep(scenario.everyMs);
  }
  await done;
  host.client.close();
  for (const guest of guests) guest.close();
  return lags;
}

async function main(): Promise<void> {
  rmSync(WORK, { recursive: true, force: true });
  mkdirSync(RESULTS, { recursive: true });
  const relay = await startRelay();
  const loadBefore = loadavg()[0]!;
  // A warm-up: the first frames pay for JIT and TLS-free socket set-up alike.
  await run(relay.url, { ...SCENARIOS[0]!, events: 50 });
  const rows = [];
  for (const scenario of SCENARIOS) {
    const lags = await run(relay.url, scenario);
    rows.push({ scenario: scenario.name, samples: lags.length, p50: round(median(lags)), p95: round(percentile(lags, 95)), max: round(Math.max(...lags)) });
    console.error(`${scenario.name}: p50 ${rows.at(-1)!.p50} ms, p95 ${rows.at(-1)!.p95} ms`);
  }
  const relayRssMb = round(rssMb(relay.pid), 1);
  const loadAfter = loadavg()[0]!;
  relay.stop();
  const result = { date: new Date().toISOString(), load: [round(loadBefore, 1), round(loadAfter, 1)], relayRssMb, rows };
  writeFileSync(join(RESULTS, "collab.json"), `${JSON.stringify(result, null, 2)}\n`);
  writeFileSync(
    join(RESULTS, "collab.md"),
    `# Collab benchmarks\n\n` +
      `\`bun bench/collab.ts\` on the compiled binary: \`omp relay serve\` on loopback; host and guests are WebSocket clients in the bench process using core/collab (AES-256-GCM through WebCrypto). ` +
      `A guest's lag: from the host starting to seal an event to a guest having opened and parsed it (seal, host → relay → guest, open, zod). ` +
      `Load average ${result.load[0]} before, ${result.load[1]} after (2 cores shared with other work).\n\n` +
      `| load | events × guests | p50 | p95 | max |\n|---|---|---|---|---|\n` +
      rows.map((row) => `| ${row.scenario} | ${row.samples} | ${row.p50} ms | ${row.p95} ms | ${row.max} ms |`).join("\n") +
      `\n\nRelay RSS after the runs: ${relayRssMb} MB.\n`,
  );
}

await main();
