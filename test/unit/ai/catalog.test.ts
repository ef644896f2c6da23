// The provider table, the model catalog and usage arithmetic.
import { describe, expect, test } from "bun:test";
import { CATALOG } from "../../../core/ai/catalog.ts";
import { builtinModels } from "../../../core/ai/index.ts";
import { Model } from "../../../core/ai/model-schema.ts";
import { PROVIDERS, getProvider, providerBaseUrl } from "../../../core/ai/providers-table.ts";
import { addUsage, usageFor } from "../../../core/ai/usage.ts";

describe("provider table", () => {
  test("every cloud provider has a key variable and an https base URL; local ones are keyless loopback", () => {
    for (const p of PROVIDERS) {
      if (p.local) {
        expect(p.keyless).toBe(true);
        expect(p.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
      } else {
        // Subscription providers take an `omp auth login` credential instead of a key; cloud
        // accounts may sign with what their own chain finds (ambient).
        if (!["openai-codex", "github-copilot", "google-gemini-cli"].includes(p.id) && !p.ambient) expect(p.keyEnv.length).toBeGreaterThan(0);
        // LiteLLM is a proxy the user runs: its documented default address is local.
        expect(p.baseUrl).toStartWith(p.id === "litellm" ? "http://localhost:" : "https://");
      }
      expect(p.baseUrl).not.toEndWith("/");
    }
    expect(PROVIDERS.map((p) => p.id)).toEqual(
      expect.arrayContaining(["anthropic", "openai", "google", "openrouter", "groq", "xai", "mistral", "deepseek", "together", "cerebras", "ollama", "llama.cpp", "lm-studio", "vllm", "amazon-bedrock", "google-vertex", "azure", "azure-foundry", "fireworks", "huggingface"]),
    );
  });

  test("base URL overrides from the environment, normalised", () => {
    const ollama = getProvider("ollama")!;
    expect(providerBaseUrl(ollama, {})).toBe("http://127.0.0.1:11434/v1");
    expect(providerBaseUrl(ollama, { OLLAMA_HOST: "0.0.0.0" })).toBe("http://127.0.0.1:11434/v1");
    expect(providerBaseUrl(ollama, { OLLAMA_HOST: "gpu-box:9000" })).toBe("http://gpu-box:9000/v1");
    expect(providerBaseUrl(ollama, { OLLAMA_HOST: "x:1", OLLAMA_BASE_URL: "http://y:2/" })).toBe("http://y:2/v1");
    expect(providerBaseUrl(getProvider("lm-studio")!, { LM_STUDIO_BASE_URL: "http://127.0.0.1:1234/v1" })).toBe("http://127.0.0.1:1234/v1");
    expect(providerBaseUrl(getProvider("anthropic")!, { ANTHROPIC_BASE_URL: "https://proxy.corp/anthropic/" })).toBe("https://proxy.corp/anthropic");
    expect(providerBaseUrl(getProvider("google")!, { GOOGLE_GEMINI_BASE_URL: "https://g.example" })).toBe("https://g.example");
  });
});

describe("catalog", () => {
  test("every built-in model is a valid Model with its provider's api", () => {
    const models = builtinModels({});
    expect(models.length).toBe(Object.values(CATALOG).flat().length);
    for (const m of models) {
      expect(Model.safeParse(m).success).toBe(true);
      // A catalog entry may name its own API (Bedrock's Converse models); otherwise the provider's.
      const entry = CATALOG[m.provider]!.find((c) => c.id === m.id)!;
      expect(m.api).toBe(entry.api ?? getProvider(m.provider)!.api);
      expect(m.maxTokens).toBeLessThanOrEqual(m.contextWindow);
      expect(m.cost.output).toBeGreaterThanOrEqual(m.cost.input);
      // A thinking spec belongs to a reasoning model, and a named-effort one names its efforts.
      if (m.thinking) expect(m.reasoning).toBe(true);
      if (m.thinking?.control === "effort") expect(m.thinking.efforts?.length).toBeGreaterThan(0);
    }
    const ids = models.map((m) => `${m.provider}/${m.id}`);
    expect(new Set(ids).size).toBe(ids.length);
    // The flagships omp defaults to, and the models the e2e tests run (kept while the providers serve them).
    for (const id of ["anthropic/claude-opus-5-5", "openai/gpt-6.2-sol", "google/gemini-4-carbon", "openrouter/anthropic/claude-opus-5.5"]) {
      expect(ids).toContain(id);
    }
    for (const id of ["anthropic/claude-sonnet-4-5", "anthropic/claude-opus-4-5", "openai/gpt-5", "google/gemini-2.5-pro", "openrouter/qwen/qwen3-coder"]) {
      expect(ids).toContain(id);
    }
  });

  test("env base URL overrides reach the models", () => {
    const sonnet = builtinModels({ ANTHROPIC_BASE_URL: "http://127.0.0.1:9/" }).find((m) => m.id === "claude-sonnet-4-5")!;
    expect(sonnet.baseUrl).toBe("http://127.0.0.1:9");
    expect(sonnet.cost).toEqual({ input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 });
  });
});

describe("usage", () => {
  test("cost per million and session totals", () => {
    const prices = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };
    const a = usageFor(prices, { input: 1_000_000, output: 100_000, cacheRead: 0, cacheWrite: 0 });
    expect(a.cost).toEqual({ input: 3, output: 1.5, cacheRead: 0, cacheWrite: 0, total: 4.5 });
    const b = usageFor(prices, { input: 0, output: 0, cacheRead: 2_000_000, cacheWrite: 400_000 });
    expect(b.cost.total).toBeCloseTo(0.6 + 1.5, 10);
    const sum = addUsage(a, b);
    expect(sum).toMatchObject({ input: 1_000_000, output: 100_000, cacheRead: 2_000_000, cacheWrite: 400_000, totalTokens: 3_500_000 });
    expect(sum.cost.total).toBeCloseTo(6.6, 10);
    expect(addUsage().totalTokens).toBe(0);
  });
});
