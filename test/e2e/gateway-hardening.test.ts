import { connect } from "node:net";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { runOmp } from "../support/omp.ts";
import { type Standin, startStandin } from "../support/standin/index.ts";
import { type GatewayProcess, gatewayHome, startGatewayProcess, writeUpstreamModels } from "../support/gateway.ts";

/** `omp auth-gateway serve` under abuse: browser pages, DNS rebinding, huge bodies, slow clients, hung upstreams, public binds. */

let standin: Standin;
let home: string;
let open: GatewayProcess;

beforeAll(async () => {
  standin = await startStandin();
  home = gatewayHome();
  writeUpstreamModels(home, standin.url);
  open = await startGatewayProcess(home, {}, ["--no-auth", "--allow-origin", "http://app.example"]);
});

afterAll(async () => {
  await open?.stop();
  await standin?.close();
});

const BODY = JSON.stringify({ model: "claude-up", max_tokens: 50, messages: [{ role: "user", content: "hi" }] });
const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) / 1024;

/** One raw HTTP/1.1 exchange: what a browser or `curl` sends, Host header included, without fetch's rewriting. */
function rawRequest(url: string, head: string, body: Uint8Array | string = ""): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => {
      socket.write(head);
      socket.write(body);
    });
    let text = "";
    socket.on("data", (chunk) => {
      text += chunk.toString();
      if (/\r\n\r\n[\s\S]*\}\s*$/.test(text)) socket.destroy();
    });
    socket.on("close", () => resolve(text));
    socket.on("error", (error) => (text ? resolve(text) : reject(error)));
  });
}

describe("browser pages and DNS rebinding (--no-auth)", () => {
  test("text/plain and form POSTs are refused with 415 in the client's envelope, before the upstream is called", async () => {
    const before = standin.requests.length;
    for (const type of ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"]) {
      const response = await fetch(`${open.url}/v1/messages`, { method: "POST", headers: { "content-type": type }, body: BODY });
      expect(response.status).toBe(415);
      const body = (await response.json()) as any;
      expect(body.type).toBe("error");
      expect(body.error.message).toContain("application/json");
    }
    const chat = await fetch(`${open.url}/v1/chat/completions`, { method: "POST", headers: { "content-type": "text/plain" }, body: BODY });
    expect(chat.status).toBe(415);
    expect(((await chat.json()) as any).error.code).toBe("unsupported_media_type");
    expect(standin.requests.length).toBe(before);
  });

  test("a foreign Origin is refused; an --allow-origin one is served", async () => {
    const before = standin.requests.length;
    const foreign = await fetch(`${open.url}/v1/messages`, { method: "POST", headers: { "content-type": "application/json", origin: "https://evil.example" }, body: BODY });
    expect(foreign.status).toBe(403);
    expect(((await foreign.json()) as any).error.message).toContain("--allow-origin https://evil.example");
    expect(standin.requests.length).toBe(before);
    standin.setScript([{ text: "allowed" }]);
    const allowed = await fetch(`${open.url}/v1/messages`, { method: "POST", headers: { "content-type": "application/json", origin: "http://app.example" }, body: BODY });
    expect(allowed.status).toBe(200);
    expect(JSON.stringify(await allowed.json())).toContain("allowed");
  });

  test("a rebound Host name is refused; loopback names and IP addresses are served", async () => {
    const head = (host: string) => `GET /v1/models HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`;
    const port = new URL(open.url).port;
    const rebound = await rawRequest(open.url, head(`attacker.example:${port}`));
    expect(rebound).toStartWith("HTTP/1.1 403");
    expect(rebound).toContain("--allow-host attacker.example");
    expect(await rawRequest(open.url, head(`localhost:${port}`))).toStartWith("HTTP/1.1 200");
    expect(await rawRequest(open.url, head(`127.0.0.1:${port}`))).toStartWith("HTTP/1.1 200");
  });
});

describe("bodies", () => {
  test("a 100 MB body gets 413 at once, declared or chunked, without the gateway reading it", async () => {
    const started = performance.now();
    const declared = await rawRequest(
      open.url,
      `POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${100 * 1024 * 1024}\r\n\r\n`,
      new Uint8Array(1024 * 1024).fill(32),
    );
    expect(declared).toStartWith("HTTP/1.1 413");
    expect(declared).toContain("request_too_large");
    expect(declared).toContain("--max-body");

    // Chunked: no length to look at, so it is counted while read and given up past the limit.
    let sent = 0;
    const chunk = new Uint8Array(1024 * 1024).fill(32);
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= 100) return controller.close();
        sent++;
        controller.enqueue(chunk);
      },
    });
    const chunked = await fetch(`${open.url}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body }).catch((error) => error as Error);
    if (chunked instanceof Response) {
      expect(chunked.status).toBe(413);
      expect(((await chunked.json()) as any).error.code).toBe("request_too_large");
    }
    // The gateway stopped after its 8 MB limit, not after 100 MB.
    expect(sent).toBeLessThan(40);
    expect(performance.now() - started).toBeLessThan(5000);
  });
});

/** An Anthropic Messages upstream that streams `megabytes` of text, written only as fast as it is read. */
function bigUpstream(megabytes: number): { url: string; stop(): void } {
  const piece = "x".repeat(8192);
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0,
    fetch() {
      const frames = [
        `event: message_start\ndata: ${JSON.stringify({ type: "message_start", message: { id: "msg_big", type: "message", role: "assistant", model: "claude-up", content: [], stop_reason: null, usage: { input_tokens: 5, output_tokens: 0 } } })}\n\n`,
        `event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n`,
      ];
      const delta = `event: content_block_delta\ndata: ${JSON.stringify({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: piece } })}\n\n`;
      const count = Math.ceil((megabytes * 1024 * 1024) / piece.length);
      let sent = -1;
      const encoder = new TextEncoder();
      const body = new ReadableStream<Uint8Array>(
        {
          pull(controller) {
            if (sent < 0) controller.enqueue(encoder.encode(frames.join("")));
            else if (sent < count) controller.enqueue(encoder.encode(delta));
            else {
              controller.enqueue(
                encoder.encode(
                  `event: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\nevent: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":9}}\n\nevent: message_stop\ndata: {"type":"message_stop"}\n\n`,
                ),
              );
              controller.close();
            }
            sent++;
          },
        },
        { highWaterMark: 0 },
      );
      return new Response(body, { headers: { "content-type": "text/event-stream" } });
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, stop: () => server.stop(true) };
}

describe("slow clients", () => {
  test("6 clients that stop reading a 50 MB stream keep the gateway's memory bounded, and it is released after they go", async () => {
    const upstream = bigUpstream(50);
    const dir = gatewayHome();
    writeUpstreamModels(dir, upstream.url);
    const gateway = await startGatewayProcess(dir, {}, ["--no-auth"]);
    let sockets: ReturnType<typeof connect>[] = [];
    try {
      const pid = gateway.proc.pid;
      // One client that reads shows the whole stream goes through.
      const whole = await fetch(`${gateway.url}/v1/messages`, { method: "POST", headers: { "content-type": "application/json" }, body: BODY.replace('"max_tokens":50', '"max_tokens":50,"stream":true') });
      expect((await whole.text()).length).toBeGreaterThan(50 * 1024 * 1024);
      await Bun.sleep(500);
      const baseline = rssMb(pid);
      const { port } = new URL(gateway.url);
      const request = BODY.replace('"max_tokens":50', '"max_tokens":50,"stream":true');
      sockets = Array.from({ length: 6 }, () => {
        const socket = connect(Number(port), "127.0.0.1", () => {
          socket.write(`POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${request.length}\r\n\r\n${request}`);
        });
        let received = 0;
        socket.on("data", (chunk) => {
          received += chunk.length;
          // After the first bytes this client stops reading, as a stalled browser tab or a stopped process would.
          if (received > 64 * 1024) socket.pause();
        });
        socket.on("error", () => {});
        return socket;
      });
      let peak = 0;
      for (let i = 0; i < 16; i++) {
        await Bun.sleep(500);
        peak = Math.max(peak, rssMb(pid));
      }
      for (const socket of sockets) socket.destroy();
      // Before: 1,053 MB for these six (the whole stream queued for each). Now the provider is read
      // only as the client reads (measured +80 to +135 MB for the six on a busy machine: the sockets' and Bun's own buffers, a few MB a stream).
      expect(peak - baseline).toBeLessThan(160);
      await Bun.sleep(1500);
      expect(rssMb(pid) - baseline).toBeLessThan(100);
      // Their upstream calls were stopped with them: the gateway has no request left running.
      const metrics = await (await fetch(`${gateway.url}/metrics`)).text();
      expect(metrics).toMatch(/omp_gateway_active_requests 0/);
    } finally {
      for (const socket of sockets) socket.destroy();
      await gateway.stop();
      upstream.stop();
    }
  }, 90_000);
});

describe("upstream timeouts", () => {
  test("an upstream that never answers times out in the client's envelope: 504 timeout_error / timeout", async () => {
    const hung = Bun.serve({ hostname: "127.0.0.1", port: 0, idleTimeout: 0, fetch: () => new Promise<Response>(() => {}) });
    // Answers headers and an SSE comment, then says nothing.
    const silent = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      idleTimeout: 0,
      fetch: () =>
        new Response(
          new ReadableStream({
            start: (controller) => controller.enqueue(new TextEncoder().encode(": open\n\n")),
            pull: () => new Promise(() => {}),
          }),
          { headers: { "content-type": "text/event-stream" } },
        ),
    });
    const dir = gatewayHome();
    writeUpstreamModels(dir, `http://127.0.0.1:${hung.port}`);
    const gateway = await startGatewayProcess(dir, {}, ["--no-auth", "--connect-timeout", "1", "--first-byte-timeout", "1"]);
    const dir2 = gatewayHome();
    writeUpstreamModels(dir2, `http://127.0.0.1:${silent.port}`);
    const gateway2 = await startGatewayProcess(dir2, {}, ["--no-auth", "--first-byte-timeout", "1"]);
    // --first-byte-timeout alone, shorter than the connect default (30 s), holds for an upstream that sends no headers either.
    const gateway3 = await startGatewayProcess(dir, {}, ["--no-auth", "--first-byte-timeout", "3"]);
    try {
      const asked = performance.now();
      const held = await fetch(`${gateway3.url}/v1/messages`, { method: "POST", headers: { "content-type": "application/json" }, body: BODY });
      const waited = performance.now() - asked;
      expect(held.status).toBe(504);
      expect(((await held.json()) as any).error.message).toContain("before the first event) for 3 s");
      expect(waited).toBeGreaterThan(2900);
      expect(waited).toBeLessThan(15_000);

      const started = performance.now();
      const anthropic = await fetch(`${gateway.url}/v1/messages`, { method: "POST", headers: { "content-type": "application/json" }, body: BODY });
      expect(anthropic.status).toBe(504);
      const body = (await anthropic.json()) as any;
      expect(body.type).toBe("error");
      expect(body.error.type).toBe("timeout_error");
      expect(body.error.message).toContain("before the response");
      expect(performance.now() - started).toBeLessThan(5000);

      const chat = await fetch(`${gateway2.url}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model: "chat-up", stream: true, messages: [{ role: "user", content: "hi" }] }),
      });
      expect(chat.status).toBe(504);
      const error = ((await chat.json()) as any).error;
      expect(error.code).toBe("timeout");
      expect(error.message).toContain("before the first event");
    } finally {
      await gateway.stop();
      await gateway2.stop();
      await gateway3.stop();
      hung.stop(true);
      silent.stop(true);
    }
  }, 60_000);
});

describe("binding", () => {
  test("--bind 0.0.0.0 is refused without --public; with it the banner shows the address really bound", async () => {
    const refused = await runOmp(["auth-gateway", "serve", "--bind", "0.0.0.0:0"], { home });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("add --public");
    const gateway = await startGatewayProcess(home, {}, ["--bind", "0.0.0.0:0", "--public"]);
    try {
      expect(gateway.stderr()).toMatch(/listening on http:\/\/0\.0\.0\.0:\d+/);
    } finally {
      await gateway.stop();
    }
  });
});
