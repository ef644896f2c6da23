// `POST /v1/embeddings` through `omp auth-gateway serve`, asked with the official OpenAI SDK:
// forwarded to the OpenAI-compatible upstream that serves the model (a loopback stand-in that
// checks the upstream key, as OpenAI does), with the model id it knows; a model no upstream can
// embed with, or an upstream without the endpoint, is a clear 4xx.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import OpenAI from "openai";
import { type GatewayProcess, gatewayHome, startGatewayProcess } from "../support/gateway.ts";

let gateway: GatewayProcess;
let upstream: ReturnType<typeof Bun.serve>;
let bare: ReturnType<typeof Bun.serve>;
const seen: { auth: string | null; body: any }[] = [];

beforeAll(async () => {
  upstream = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const url = new URL(req.url);
      if (req.method !== "POST" || url.pathname !== "/v1/embeddings") return new Response("not found", { status: 404 });
      const body = (await req.json()) as any;
      seen.push({ auth: req.headers.get("authorization"), body });
      if (req.headers.get("authorization") !== "Bearer sk-upstream-test") return Response.json({ error: { message: "Incorrect API key provided", type: "invalid_request_error" } }, { status: 401 });
      const inputs = Array.isArray(body.input) ? body.input : [body.input];
      return Response.json({ object: "list", model: body.model, data: inputs.map((text: string, index: number) => ({ object: "embedding", index, embedding: [text.length, index, 0.5] })), usage: { prompt_tokens: 3, total_tokens: 3 } });
    },
  });
  // An OpenAI-compatible chat server without an embeddings endpoint.
  bare = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("404 page not found", { status: 404 }) });
  const home = gatewayHome();
  mkdirSync(join(home, ".omp", "agent"), { recursive: true });
  writeFileSync(
    join(home, ".omp", "agent", "models.yml"),
    `providers:\n  up-embed:\n    baseUrl: http://127.0.0.1:${upstream.port}/v1\n    api: openai-completions\n    apiKey: UPSTREAM_KEY\n    models:\n      - id: text-embed-up\n  up-bare:\n    baseUrl: http://127.0.0.1:${bare.port}/v1\n    api: openai-completions\n    apiKey: UPSTREAM_KEY\n    models:\n      - id: chat-only\n`,
  );
  gateway = await startGatewayProcess(home);
});

afterAll(async () => {
  await gateway?.stop();
  upstream?.stop(true);
  bare?.stop(true);
});

test("the SDK's embeddings.create reaches the upstream that lists the model, with its key; provider/model names it too", async () => {
  const client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: gateway.token, maxRetries: 0 });
  const result = await client.embeddings.create({ model: "text-embed-up", input: ["hello", "embeddings"], encoding_format: "float" });
  expect(result.data.map((item) => item.embedding)).toEqual([[5, 0, 0.5], [10, 1, 0.5]]);
  expect(seen.at(-1)).toMatchObject({ auth: "Bearer sk-upstream-test", body: { model: "text-embed-up", input: ["hello", "embeddings"] } });
  const named = await client.embeddings.create({ model: "up-embed/other-embedder", input: "x", encoding_format: "float" });
  expect(named.data[0]!.embedding).toEqual([1, 0, 0.5]);
  expect(seen.at(-1)!.body.model).toBe("other-embedder");
});

test("a model no upstream embeds with, and an upstream without the endpoint, are clear 4xx answers", async () => {
  const client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: gateway.token, maxRetries: 0 });
  const unknown = await client.embeddings.create({ model: "nobody-has-this", input: "x" }).catch((error) => error);
  expect(unknown).toBeInstanceOf(OpenAI.NotFoundError);
  expect(unknown.message).toContain("name one as provider/model (up-embed, up-bare)");
  const missing = await client.embeddings.create({ model: "up-bare/chat-only", input: "x" }).catch((error) => error);
  expect(missing.status).toBe(404);
  expect(missing.message).toContain("may not have an embeddings endpoint");
  const noAuth = await fetch(`${gateway.url}/v1/embeddings`, { method: "POST", body: JSON.stringify({ model: "text-embed-up", input: "x" }) });
  expect(noAuth.status).toBe(401);
  const bad = await fetch(`${gateway.url}/v1/embeddings`, { method: "POST", headers: { authorization: `Bearer ${gateway.token}`, "content-type": "application/json" }, body: JSON.stringify({ input: "x" }) });
  expect(bad.status).toBe(400);
});
