// API key resolution order and the models.yml apiKey forms.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { resolveApiKey } from "../../../core/auth/keys.ts";
import { tempDir } from "../../support/temp.ts";

const store = (keys: Record<string, string>) => ({
  resolve: async (provider: string) => {
    const key = keys[provider];
    return key === undefined ? undefined : { id: 1, provider, key, credential: { type: "api_key" as const, key }, source: "credential store" };
  },
});

describe("resolveApiKey", () => {
  test("order: --api-key, models.yml, credential store, env", async () => {
    const env = { ANTHROPIC_API_KEY: "from-env" };
    const all = { provider: "anthropic", cliKey: "from-cli", configKey: "from-config", store: store({ anthropic: "from-store" }), env };
    expect(await resolveApiKey(all)).toEqual({ ok: true, key: "from-cli", source: "--api-key" });
    expect(await resolveApiKey({ ...all, cliKey: undefined })).toEqual({ ok: true, key: "from-config", source: "models.yml apiKey" });
    expect(await resolveApiKey({ ...all, cliKey: "", configKey: undefined })).toMatchObject({ ok: true, key: "from-store", source: "credential store" });
    expect(await resolveApiKey({ provider: "anthropic", store: store({}), env })).toEqual({ ok: true, key: "from-env", source: "ANTHROPIC_API_KEY" });
  });

  test("a models.yml value naming a set env var reads it; unset, it is the literal key", async () => {
    const env = { MY_GATEWAY_KEY: "gateway-secret" };
    expect(await resolveApiKey({ provider: "gw", configKey: "MY_GATEWAY_KEY", env })).toEqual({ ok: true, key: "gateway-secret", source: "models.yml apiKey ($MY_GATEWAY_KEY)" });
    expect(await resolveApiKey({ provider: "gw", configKey: "OTHER_KEY", env })).toEqual({ ok: true, key: "OTHER_KEY", source: "models.yml apiKey" });
  });

  test("!command runs in a shell once per process, stdout trimmed", async () => {
    const dir = tempDir("omp-keys-");
    const counter = join(dir, "runs");
    const command = `!echo run >> '${counter}'; printf '  secret-from-command \\n'`;
    const first = await resolveApiKey({ provider: "openai", configKey: command, env: {} });
    const second = await resolveApiKey({ provider: "openai", configKey: command, env: {} });
    expect(first).toEqual({ ok: true, key: "secret-from-command", source: "models.yml apiKey command" });
    expect(second).toEqual(first);
    expect(readFileSync(counter, "utf8")).toBe("run\n");
  });

  test("a failing command falls through to later sources, and is named when none has a key", async () => {
    const failing = "!echo 'vault is locked' >&2; exit 3";
    expect(await resolveApiKey({ provider: "openai", configKey: failing, env: { OPENAI_API_KEY: "env-key" } })).toEqual({ ok: true, key: "env-key", source: "OPENAI_API_KEY" });
    const missing = await resolveApiKey({ provider: "openai", configKey: failing, env: {} });
    expect(missing).toEqual({
      ok: false,
      error: "No API key for openai (the apiKey command exited with status 3: vault is locked): set OPENAI_API_KEY, or run `omp auth add openai`",
    });
  });

  test("missing keys say which env var to set", async () => {
    expect(await resolveApiKey({ provider: "google", env: {} })).toEqual({
      ok: false,
      error: "No API key for google: set GEMINI_API_KEY (or GOOGLE_API_KEY), or run `omp auth add google`",
    });
    expect(await resolveApiKey({ provider: "google", env: { GOOGLE_API_KEY: "g" } })).toEqual({ ok: true, key: "g", source: "GOOGLE_API_KEY" });
    expect(await resolveApiKey({ provider: "my-gateway", env: {} })).toEqual({
      ok: false,
      error: "No API key for my-gateway: set apiKey for it in models.yml, or run `omp auth add my-gateway`",
    });
  });

  test("local servers need no key but use one when configured", async () => {
    expect(await resolveApiKey({ provider: "ollama", env: {} })).toEqual({ ok: true, key: undefined, source: "none (no key needed)" });
    expect(await resolveApiKey({ provider: "vllm", env: { VLLM_API_KEY: "v" } })).toEqual({ ok: true, key: "v", source: "VLLM_API_KEY" });
    expect(await resolveApiKey({ provider: "my-box", keyless: true, env: {} })).toEqual({ ok: true, key: undefined, source: "none (no key needed)" });
  });
});
