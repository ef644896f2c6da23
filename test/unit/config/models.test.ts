import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Model } from "../../../core/ai/model-schema.ts";
import { knownModels } from "../../../core/agent/models.ts";
import { CUSTOM_MODEL_DEFAULTS, customModels, loadModelsConfig } from "../../../core/config/models.ts";
import type { ModelEntry, ModelsConfig, ProviderEntry } from "../../../core/config/models-schema.ts";
import { OmpError } from "../../../core/errors/omp-error.ts";
import { clearSkippedForTrust, skippedForTrust } from "../../../core/trust/folder-trust.ts";
import { scratchDir } from "./scratch.ts";

function setup(global?: string, project?: string) {
  const root = scratchDir("omp-models-");
  const agent = join(root, "agent");
  const cwd = join(root, "project");
  mkdirSync(agent, { recursive: true });
  mkdirSync(join(cwd, ".omp"), { recursive: true });
  if (global !== undefined) writeFileSync(join(agent, "models.yml"), global);
  if (project !== undefined) writeFileSync(join(cwd, ".omp", "models.yml"), project);
  return { agent, cwd, env: { OMP_AGENT_DIR: agent }, globalFile: join(agent, "models.yml"), projectFile: join(cwd, ".omp", "models.yml") };
}

function errorOf(fn: () => unknown): OmpError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(OmpError);
    expect((error as OmpError).exitCode).toBe(2);
    return error as OmpError;
  }
  throw new Error("expected an OmpError, nothing was thrown");
}

const LOCAL = `
providers:
  local:
    baseUrl: http://127.0.0.1:8000/v1/
    auth: none
    api: openai-completions
    headers: { X-Team: platform }
    models:
      - id: qwen
        name: Qwen local
        input: [text, image]
        headers: { X-Model: q }
      - id: tiny
        api: openai-responses
        contextWindow: 8192
        maxTokens: 1024
`;

describe("models.yml", () => {
  test("no files: no providers", () => {
    const { cwd, env } = setup();
    expect(loadModelsConfig({ cwd, env })).toEqual({ config: { providers: {} }, files: [] });
  });

  test("a keyless custom provider becomes models with defaults filled in", () => {
    const { cwd, env, globalFile } = setup(LOCAL);
    const loaded = loadModelsConfig({ cwd, env });
    expect(loaded.files).toEqual([globalFile]);
    const models = customModels(loaded.config);
    expect(models.map((m) => [m.provider, m.id, m.name, m.api, m.baseUrl, m.contextWindow, m.maxTokens])).toEqual([
      ["local", "qwen", "Qwen local", "openai-completions", "http://127.0.0.1:8000/v1", 128000, 16384],
      ["local", "tiny", "tiny", "openai-responses", "http://127.0.0.1:8000/v1", 8192, 1024],
    ]);
    expect(models[0]!.input).toEqual(["text", "image"]);
    expect(models[0]!.headers).toEqual({ "X-Team": "platform", "X-Model": "q" });
    expect(models[1]!.headers).toEqual({ "X-Team": "platform" });
  });

  test("overriding a built-in provider's endpoint or key needs no models", () => {
    const { cwd, env } = setup("providers:\n  openai:\n    baseUrl: https://proxy.example.com/v1\n  anthropic:\n    apiKey: CORP_ANTHROPIC_KEY\n");
    const { config } = loadModelsConfig({ cwd, env });
    expect(config.providers.openai?.baseUrl).toBe("https://proxy.example.com/v1");
    expect(config.providers.anthropic?.apiKey).toBe("CORP_ANTHROPIC_KEY");
    expect(customModels(config)).toEqual([]);
  });

  test("a full custom provider needs baseUrl, apiKey (unless auth: none) and api", () => {
    const { cwd, env, globalFile } = setup("providers:\n  corp:\n    models:\n      - id: m1\n");
    const lines = errorOf(() => loadModelsConfig({ cwd, env })).message.split("\n");
    expect(lines).toEqual([
      `${globalFile}: providers.corp.baseUrl: missing; required for a provider that lists models`,
      `${globalFile}: providers.corp.apiKey: missing; required for a provider that lists models, unless auth: none`,
      `${globalFile}: providers.corp.models[0].api: missing; give api here or on the provider`,
    ]);
  });

  test("shape errors name the key, what was found and what is allowed", () => {
    const { cwd, env, globalFile } = setup(
      "providers:\n  corp:\n    baseUrl: not a url\n    api: openai-chat\n    auth: oath\n    models:\n      - id: m\n        contextWindow: -5\n        vision: true\n",
    );
    const lines = errorOf(() => loadModelsConfig({ cwd, env })).message.split("\n");
    expect(lines).toContain(`${globalFile}: providers.corp.baseUrl: got "not a url", expected a URL`);
    expect(lines).toContain(
      `${globalFile}: providers.corp.api: got "openai-chat", expected one of anthropic-messages, openai-completions, openai-responses, google-generative-ai, openai-codex-responses, google-gemini-cli, bedrock-converse`,
    );
    // `oauth` is the original omp's mode, taken; a misspelling is not.
    expect(lines).toContain(`${globalFile}: providers.corp.auth: got "oath", expected one of apiKey, none, oauth`);
    expect(lines).toContain(`${globalFile}: providers.corp.models[0].contextWindow: got -5, expected a number > 0`);
    expect(lines.some((line) => line.startsWith(`${globalFile}: providers.corp.models[0].vision: unknown key; allowed here: id, name,`))).toBe(true);
  });

  test("a provider entry that sets nothing is an error", () => {
    const { cwd, env, globalFile } = setup("providers:\n  openai:\n    models: []\n");
    expect(errorOf(() => loadModelsConfig({ cwd, env })).message).toStartWith(`${globalFile}: providers.openai: sets nothing`);
  });

  test("the project file merges over the global one and is blamed for its own mistakes", () => {
    const global = "providers:\n  corp:\n    baseUrl: https://corp.example.com\n    apiKey: CORP_KEY\n    api: anthropic-messages\n";
    const { cwd, env } = setup(global, "providers:\n  corp:\n    models:\n      - id: claude-corp\n");
    const models = customModels(loadModelsConfig({ cwd, env }).config);
    expect(models.map((m) => `${m.provider}/${m.id} ${m.api} ${m.baseUrl}`)).toEqual(["corp/claude-corp anthropic-messages https://corp.example.com"]);

    const broken = setup("providers:\n  corp:\n    apiKey: K\n", "providers:\n  corp:\n    api: openai-completions\n    models:\n      - id: x\n");
    expect(errorOf(() => loadModelsConfig({ cwd: broken.cwd, env: broken.env, trusted: true })).message).toBe(
      `${broken.projectFile}: providers.corp.baseUrl: missing; required for a provider that lists models`,
    );
  });

  test("in an untrusted folder the project file overrides nothing and says so; trusted, it does", () => {
    const { cwd, env } = setup(undefined, 'providers:\n  anthropic:\n    baseUrl: http://127.0.0.1:9/evil\n    apiKey: "!touch marker"\n');
    clearSkippedForTrust();
    expect(loadModelsConfig({ cwd, env, trusted: false }).config.providers).toEqual({});
    expect(skippedForTrust()).toEqual([".omp/models.yml: providers.anthropic (baseUrl, apiKey command)"]);
    clearSkippedForTrust();
    expect(loadModelsConfig({ cwd, env, trusted: true }).config.providers.anthropic).toEqual({ baseUrl: "http://127.0.0.1:9/evil", apiKey: "!touch marker" });
    expect(skippedForTrust()).toEqual([]);
  });

  test("a model says how it takes its thinking level; without that, a built-in model of the same id and api lends its own", () => {
    const { cwd, env } = setup(`
providers:
  corp:
    baseUrl: https://llm.corp.example.com
    apiKey: CORP_KEY
    api: anthropic-messages
    models:
      - id: claude-opus-5-5
        reasoning: true
      - id: house-model
        reasoning: true
        thinking: { control: effort, efforts: [low, high], off: disable }
      - id: older
        reasoning: true
`);
    const models = knownModels(loadModelsConfig({ cwd, env }).config, {});
    const corp = (id: string) => models.find((m) => m.provider === "corp" && m.id === id)!;
    expect(corp("claude-opus-5-5").thinking).toEqual(models.find((m) => m.provider === "anthropic" && m.id === "claude-opus-5-5")!.thinking!);
    expect(corp("house-model").thinking).toEqual({ control: "effort", efforts: ["low", "high"], off: "disable", fixedSampling: false });
    expect(corp("older").thinking).toBeUndefined();

    const bad = setup("providers:\n  corp:\n    baseUrl: https://x.example\n    apiKey: K\n    api: openai-responses\n    models:\n      - id: m\n        thinking: { control: effort, off: maybe }\n");
    expect(errorOf(() => loadModelsConfig({ cwd: bad.cwd, env: bad.env })).message).toContain(
      `${bad.globalFile}: providers.corp.models[0].thinking.off: got "maybe", expected one of omit, disable, between-tools, never`,
    );
  });

  test("custom models are built without zod and get exactly the Model schema's defaults", () => {
    const providers: ProviderEntry[] = [
      { baseUrl: "http://127.0.0.1:8000/v1//", api: "openai-completions", auth: "none" },
      { baseUrl: "https://corp.example.com", apiKey: "K", api: "anthropic-messages", headers: { "X-Team": "t" } },
    ];
    const models: ModelEntry[] = [
      { id: "bare" },
      { id: "named", name: "Named", api: "openai-responses" },
      { id: "full", reasoning: true, input: ["text", "image"], cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 }, contextWindow: 1, maxTokens: 2, headers: { "X-Model": "m", "X-Team": "mine" } },
      { id: "partial-cost", reasoning: false, input: ["image"], cost: { input: 1, output: 2 } },
      { id: "headers-only", headers: { A: "b" } },
      { id: "adaptive", reasoning: true, thinking: { control: "effort", efforts: ["low", "high"], off: "never", fixedSampling: true } },
      { id: "budget", reasoning: true, thinking: { control: "budget" } },
    ];
    for (const entry of providers) {
      const config: ModelsConfig = { providers: { p: { ...entry, models } } };
      // What customModels did through the schema before it built models directly.
      const throughSchema = models.map((model) =>
        Model.parse({
          id: model.id,
          name: model.name ?? model.id,
          provider: "p",
          api: model.api ?? entry.api,
          baseUrl: entry.baseUrl!.replace(/\/+$/, ""),
          reasoning: model.reasoning,
          input: model.input,
          cost: model.cost,
          contextWindow: model.contextWindow ?? CUSTOM_MODEL_DEFAULTS.contextWindow,
          maxTokens: model.maxTokens ?? CUSTOM_MODEL_DEFAULTS.maxTokens,
          headers: entry.headers || model.headers ? { ...entry.headers, ...model.headers } : undefined,
          thinking: model.thinking,
        }),
      );
      expect(customModels(config)).toStrictEqual(throughSchema);
    }
  });
});
