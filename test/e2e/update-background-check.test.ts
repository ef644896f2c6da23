// The interactive agent's daily update check: cached, in the background, silent when offline.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CHECK_INTERVAL_MS, startUpdateCheck, updateCheckEnabled } from "../../core/update/background-check.ts";
import { tempDir } from "../support/omp.ts";
import { type ReleaseServer, startReleaseServer } from "../support/release-server.ts";

setDefaultTimeout(30_000);

const CURRENT = "1.0.0";
let server: ReleaseServer;

beforeAll(async () => {
  // Only the channel pointers matter here: no release files are fetched.
  const root = tempDir("omp-served-");
  mkdirSync(join(root, "channels"));
  const date = new Date().toISOString();
  for (const [channel, version] of [["stable", "1.1.0"], ["canary", "1.2.0-canary.1"]]) {
    writeFileSync(join(root, "channels", `${channel}.json`), JSON.stringify({ channel, version, date }));
  }
  server = await startReleaseServer(root);
});

afterAll(() => server.stop());

function check(env: Record<string, string>, now = Date.now(), channel: "stable" | "canary" = "stable") {
  const notices: string[] = [];
  const done = startUpdateCheck({ channel, env, now, currentVersion: CURRENT, executable: "/home/user/.local/bin/omp", onNotice: (text) => notices.push(text) });
  return { notices, done };
}

test("a newer version is announced once, and the answer is cached for a day", async () => {
  const env = { OMP_AGENT_DIR: tempDir(), OMP_UPDATE_URL: server.url };
  const first = check(env);
  expect(first.notices).toEqual([]);
  await first.done;
  expect(first.notices).toEqual([`omp 1.1.0 is available (this is ${CURRENT}): run omp update`]);
  expect(JSON.parse(readFileSync(join(env.OMP_AGENT_DIR, "update-check.json"), "utf8"))).toMatchObject({ channel: "stable", latest: "1.1.0" });

  const requests = server.requests.length;
  const cached = check(env);
  // From the cache, before anything is awaited.
  expect(cached.notices).toHaveLength(1);
  await cached.done;
  expect(cached.notices).toHaveLength(1);
  expect(server.requests.length).toBe(requests);

  const nextDay = check(env, Date.now() + CHECK_INTERVAL_MS + 1000);
  await nextDay.done;
  expect(server.requests.length).toBe(requests + 1);
  expect(nextDay.notices).toHaveLength(1);
});

test("another channel is checked at once", async () => {
  const env = { OMP_AGENT_DIR: tempDir(), OMP_UPDATE_URL: server.url };
  await check(env).done;
  const canary = check(env, Date.now(), "canary");
  await canary.done;
  expect(canary.notices).toEqual([`omp 1.2.0-canary.1 is available (this is ${CURRENT}): run omp update`]);
});

test("never delays the caller, even when the server hangs", async () => {
  server.fault("/channels/stable.json", { kind: "slow", bytesPer100ms: 1 });
  try {
    const started = performance.now();
    const slow = check({ OMP_AGENT_DIR: tempDir(), OMP_UPDATE_URL: server.url });
    expect(performance.now() - started).toBeLessThan(50);
    expect(slow.notices).toEqual([]);
  } finally {
    server.clearFaults();
  }
});

test("offline: no notice, no error, and tomorrow's check is not brought forward", async () => {
  const env = { OMP_AGENT_DIR: tempDir(), OMP_UPDATE_URL: "http://127.0.0.1:9" };
  const offline = check(env);
  await offline.done;
  expect(offline.notices).toEqual([]);
  expect(existsSync(join(env.OMP_AGENT_DIR, "update-check.json"))).toBe(true);
});

test("a Homebrew install is told to use brew", async () => {
  const notices: string[] = [];
  const env = { OMP_AGENT_DIR: tempDir(), OMP_UPDATE_URL: server.url };
  await startUpdateCheck({ channel: "stable", env, currentVersion: CURRENT, executable: "/opt/homebrew/Cellar/omp/1.0.0/bin/omp", onNotice: (text) => notices.push(text) });
  expect(notices).toEqual([`omp 1.1.0 is available (this is ${CURRENT}): run brew upgrade omp`]);
});

test("up to date: nothing to say", async () => {
  const notices: string[] = [];
  await startUpdateCheck({ channel: "stable", env: { OMP_AGENT_DIR: tempDir(), OMP_UPDATE_URL: server.url }, currentVersion: "1.1.0", onNotice: (text) => notices.push(text) });
  expect(notices).toEqual([]);
});

test("OMP_NO_UPDATE_CHECK=1 and update.checkForUpdates: false turn it off", () => {
  expect(updateCheckEnabled(true, { OMP_NO_UPDATE_CHECK: "1" })).toBe(false);
  expect(updateCheckEnabled(false, {})).toBe(false);
});
