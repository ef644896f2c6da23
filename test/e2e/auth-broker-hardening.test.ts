// `omp auth-broker serve` under abuse, through the compiled binary: oversized credentials and
// bodies, subscribers that stop reading the snapshot stream, public binds (TLS or an explicit
// --insecure-http), and the client's snapshot cache when damaged or readable by others.
import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import { agentTestFile, runAgent, workspace } from "../support/agent-harness.ts";
import { runOmp, tempDir } from "../support/omp.ts";
import { type RunningBroker, startBroker, stopBrokers } from "../support/broker.ts";

afterAll(stopBrokers);

const standin = await agentTestFile();
const bearer = (token: string) => ({ authorization: `Bearer ${token}`, "content-type": "application/json" });
const post = (broker: RunningBroker, path: string, body: unknown) => fetch(`${broker.url}${path}`, { method: "POST", headers: bearer(broker.token), body: JSON.stringify(body) });

describe("limits", () => {
  test("a 50 MB credential is refused with 413 before it is read; a 20 KB key with 400 naming the field; a real one is stored", async () => {
    const broker = await startBroker(tempDir("omp-broker-"));
    const started = performance.now();
    const huge = await post(broker, "/v1/credential", { provider: "openai", credential: { type: "api_key", key: "k".repeat(50 * 1024 * 1024) } });
    expect(huge.status).toBe(413);
    expect(((await huge.json()) as any).error).toContain("larger than the limit of 64 KB");
    expect(performance.now() - started).toBeLessThan(5000);

    const long = await post(broker, "/v1/credential", { provider: "openai", credential: { type: "api_key", key: "k".repeat(20 * 1024) } });
    expect(long.status).toBe(400);
    expect(((await long.json()) as any).error).toContain("credential.key: must be at most 16384 characters");
    const email = await post(broker, "/v1/credential", { provider: "anthropic", credential: { type: "oauth", access: "a", refresh: "r", expires: 1, email: "e".repeat(5000) } });
    expect(email.status).toBe(400);

    expect((await post(broker, "/v1/credential", { provider: "openai", credential: { type: "api_key", key: "sk-proj-realistic-key-0123456789" } })).status).toBe(200);
    const rss = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${broker.child.pid}/status`, "utf8"))![1]) / 1024;
    expect(rss).toBeLessThan(200);
  });

  test("a subscriber that stops reading is dropped with a resync event; memory stays bounded", async () => {
    const broker = await startBroker(tempDir("omp-broker-"));
    const stored: any = await (await post(broker, "/v1/credential", { provider: "openai", credential: { type: "api_key", key: `sk-${"x".repeat(15_000)}` } })).json();
    const id = stored.entries[0].id;
    const { port } = new URL(broker.url);
    let text = "";
    let stopped = false;
    const socket = connect(Number(port), "127.0.0.1", () => socket.write(`GET /v1/snapshot/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${broker.token}\r\n\r\n`));
    socket.on("data", (chunk) => {
      text += chunk.toString();
      if (!stopped && text.includes('"kind":"snapshot"')) {
        stopped = true;
        socket.pause();
      }
    });
    while (!text.includes('"kind":"snapshot"')) await Bun.sleep(20);
    // Each block changes the entry, and each change is pushed whole (15 KB) to every subscriber.
    for (let i = 0; i < 1500 && !broker.output().includes("dropped a snapshot stream"); i++) {
      expect((await post(broker, `/v1/credential/${id}/block`, { untilMs: Date.now() + 3_600_000 + i })).status).toBe(200);
    }
    expect(broker.output()).toContain("dropped a snapshot stream that stopped reading");
    const rss = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${broker.child.pid}/status`, "utf8"))![1]) / 1024;
    expect(rss).toBeLessThan(200);
    socket.resume();
    // What was queued arrives, then the resync event, then the end of the chunked body.
    const deadline = Date.now() + 20_000;
    while (!text.endsWith("0\r\n\r\n") && Date.now() < deadline) await Bun.sleep(50);
    socket.destroy();
    expect(text.includes('"kind":"resync"')).toBe(true);
    expect(text.endsWith("0\r\n\r\n")).toBe(true);
  }, 90_000);
});

describe("binding", () => {
  test("a public address needs --public, then TLS or --insecure-http (warned about on every start)", async () => {
    const home = tempDir("omp-broker-");
    const refused = await runOmp(["auth-broker", "serve", "--bind", "0.0.0.0:0"], { home });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("add --public");
    const plain = await runOmp(["auth-broker", "serve", "--bind", "0.0.0.0:0", "--public"], { home });
    expect(plain.code).toBe(2);
    expect(plain.stderr).toContain("--tls-cert and --tls-key, or --insecure-http");

    const insecure = Bun.spawn([(await import("../support/omp.ts")).OMP, "auth-broker", "serve", "--bind", "0.0.0.0:0", "--public", "--insecure-http"], {
      env: { PATH: process.env.PATH, HOME: home },
      stdout: "pipe",
      stderr: "pipe",
    });
    let out = "";
    for await (const chunk of insecure.stdout) {
      out += new TextDecoder().decode(chunk);
      if (out.includes("listening")) break;
    }
    insecure.kill(9);
    expect(out).toContain("WARNING: serving credentials over plain HTTP");
    expect(out).toMatch(/auth-broker listening http:\/\/0\.0\.0\.0:\d+/);

    const key = join(home, "key.pem");
    const cert = join(home, "cert.pem");
    const made = Bun.spawnSync(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert, "-days", "1", "-subj", "/CN=127.0.0.1"], { stderr: "pipe" });
    expect(made.exitCode).toBe(0);
    const tls = Bun.spawn([(await import("../support/omp.ts")).OMP, "auth-broker", "serve", "--bind", "0.0.0.0:0", "--public", "--tls-cert", cert, "--tls-key", key], {
      env: { PATH: process.env.PATH, HOME: home },
      stdout: "pipe",
      stderr: "pipe",
    });
    out = "";
    for await (const chunk of tls.stdout) {
      out += new TextDecoder().decode(chunk);
      if (out.includes("listening")) break;
    }
    try {
      expect(out).not.toContain("WARNING");
      const port = /listening https:\/\/0\.0\.0\.0:(\d+)/.exec(out)![1];
      const health = await fetch(`https://127.0.0.1:${port}/v1/healthz`, { tls: { rejectUnauthorized: false } });
      expect(((await health.json()) as any).ok).toBe(true);
    } finally {
      tls.kill(9);
    }
  });
});

describe("client snapshot cache", () => {
  test("a cache readable by others is refused with the chmod to fix it; a damaged one is said to be and discarded", async () => {
    const broker = await startBroker(tempDir("omp-broker-"));
    expect((await post(broker, "/v1/credential", { provider: "anthropic", credential: { type: "api_key", key: "sk-ant-api03-cachecachecache0123" } })).status).toBe(200);
    const { home, repo } = workspace();
    const env = { OMP_AUTH_BROKER_URL: broker.url, OMP_AUTH_BROKER_TOKEN: broker.token, ANTHROPIC_BASE_URL: standin.url };
    standin.setScript([{ text: "via broker" }]);
    expect((await runAgent(["-p", "--model", "anthropic/claude-sonnet-4-5", "hello"], { home, cwd: repo, env })).stdout).toBe("via broker\n");
    const cache = join(home, ".omp", "cache", "auth-broker-snapshot.enc");
    broker.child.kill("SIGTERM");
    await broker.child.exited;

    chmodSync(cache, 0o644);
    const shared = await runAgent(["-p", "--model", "anthropic/claude-sonnet-4-5", "hello"], { home, cwd: repo, env });
    expect(shared.code).not.toBe(0);
    expect(shared.stderr).toContain("is readable by other users (mode 0644)");
    expect(shared.stderr).toContain(`chmod 600 ${cache}`);
    expect(existsSync(cache)).toBe(true);

    chmodSync(cache, 0o600);
    const bytes = readFileSync(cache);
    bytes[bytes.length - 3]! ^= 0xff;
    writeFileSync(cache, bytes);
    const damaged = await runAgent(["-p", "--model", "anthropic/claude-sonnet-4-5", "hello"], { home, cwd: repo, env });
    expect(damaged.code).not.toBe(0);
    expect(damaged.stderr).toContain("cannot be reached");
    expect(damaged.stderr).toContain("was damaged");
    expect(existsSync(cache)).toBe(false);
  });
});
