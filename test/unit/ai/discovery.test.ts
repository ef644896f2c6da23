// Local server discovery against stand-ins posing as Ollama and llama.cpp.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { DEFAULT_LOCAL_CONTEXT, discoverLocalModels } from "../../../core/ai/discovery.ts";
import { type Standin, startStandin } from "../../support/standin/index.ts";

let ollama: Standin;
let llamacpp: Standin;
let vllm: Standin;
let deadPort: string;

beforeAll(async () => {
  ollama = await startStandin({ models: [{ id: "qwen2.5-coder:7b" }, { id: "llama3.2:latest" }] });
  llamacpp = await startStandin({ models: [{ id: "Qwen3-1.7B-Q4_K_M.gguf", contextWindow: 40_960 }], listingStyle: "llama.cpp" });
  vllm = await startStandin({ models: [{ id: "Qwen/Qwen2.5-Coder-32B-Instruct", contextWindow: 65_536 }], listingStyle: "vllm" });
  const closed = await startStandin();
  deadPort = new URL(closed.url).port;
  await closed.close();
});
afterAll(async () => {
  await Promise.all([ollama.close(), llamacpp.close(), vllm.close()]);
});

const dead = () => `http://127.0.0.1:${deadPort}`;

describe("local discovery", () => {
  test("finds models on servers posing as Ollama, llama.cpp and vLLM", async () => {
    const env = {
      OLLAMA_HOST: ollama.url.replace("http://", ""),
      LLAMA_CPP_BASE_URL: llamacpp.url,
      VLLM_BASE_URL: `${vllm.url}/v1`,
      LM_STUDIO_BASE_URL: `${dead()}/v1`,
    };
    const models = await discoverLocalModels({ env });
    const summary = models.map((m) => [m.provider, m.id, m.baseUrl, m.contextWindow]);
    expect(summary).toEqual([
      ["ollama", "qwen2.5-coder:7b", `${ollama.url}/v1`, DEFAULT_LOCAL_CONTEXT],
      ["ollama", "llama3.2:latest", `${ollama.url}/v1`, DEFAULT_LOCAL_CONTEXT],
      ["llama.cpp", "Qwen3-1.7B-Q4_K_M.gguf", `${llamacpp.url}/v1`, 40_960],
      ["vllm", "Qwen/Qwen2.5-Coder-32B-Instruct", `${vllm.url}/v1`, 65_536],
    ]);
    for (const m of models) {
      expect(m.api).toBe("openai-completions");
      expect(m.cost).toEqual({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0 });
      expect(m.maxTokens).toBeLessThanOrEqual(m.contextWindow);
    }
    expect(ollama.requests.map((r) => `${r.method} ${r.path}`)).toEqual(["GET /api/tags"]);
    expect(llamacpp.requests.map((r) => `${r.method} ${r.path}`)).toEqual(["GET /v1/models"]);
  });

  test("OLLAMA_CONTEXT_LENGTH sets the window Ollama does not report", async () => {
    const models = await discoverLocalModels({ env: { OLLAMA_BASE_URL: ollama.url, OLLAMA_CONTEXT_LENGTH: "8192" }, providers: ["ollama"] });
    expect(models.map((m) => m.contextWindow)).toEqual([8192, 8192]);
  });

  test("a configured key is sent to servers that want one", async () => {
    await discoverLocalModels({ env: { VLLM_BASE_URL: vllm.url, VLLM_API_KEY: "local-secret" }, providers: ["vllm"] });
    expect(vllm.requests.at(-1)!.headers.authorization).toBe("Bearer local-secret");
  });

  test("nothing listening costs no noticeable time", async () => {
    const env = { OLLAMA_BASE_URL: dead(), LLAMA_CPP_BASE_URL: dead(), LM_STUDIO_BASE_URL: dead(), VLLM_BASE_URL: dead() };
    const started = performance.now();
    expect(await discoverLocalModels({ env })).toEqual([]);
    expect(performance.now() - started).toBeLessThan(250);
  });

  test("a server that never answers is given up on after the timeout", async () => {
    const stuck = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Promise<Response>(() => {}) });
    try {
      const started = performance.now();
      const models = await discoverLocalModels({ env: { LLAMA_CPP_BASE_URL: `http://127.0.0.1:${stuck.port}` }, providers: ["llama.cpp"], timeoutMs: 150 });
      const elapsed = performance.now() - started;
      expect(models).toEqual([]);
      expect(elapsed).toBeGreaterThanOrEqual(140);
      expect(elapsed).toBeLessThan(600);
    } finally {
      await stuck.stop(true);
    }
  });
});
