// Provider quirks on the compiled binary against the stand-in: what each service accepts and how
// it fails (Gemini's RetryInfo and zero quotas, Mistral's 422 on stream_options, xAI's reasoning
// effort), a stream that goes silent, and an overload that breaks off an answer.
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { agentTestFile, modelRequests, runAgent, workspace } from "../support/agent-harness.ts";

const standin = await agentTestFile();

const key = (name: string) => `omptest_${name}_${crypto.randomUUID().replaceAll("-", "")}`;
const gemini = () => ({ GEMINI_BASE_URL: standin.url, GEMINI_API_KEY: key("gem") });

function config(home: string, yaml: string): void {
  mkdirSync(join(home, ".omp", "agent"), { recursive: true });
  writeFileSync(join(home, ".omp", "agent", "config.yml"), yaml);
}

function geminiQuotaError(retryDelay: string, limit: number) {
  return {
    error: {
      code: 429,
      message: `You exceeded your current quota, please check your plan and billing details. Quota exceeded for metric: generativelanguage.googleapis.com/generate_content_free_tier_requests, limit: ${limit}, model: gemini-4-carbon\nPlease retry in ${retryDelay}.`,
      status: "RESOURCE_EXHAUSTED",
      details: [
        { "@type": "type.googleapis.com/google.rpc.QuotaFailure", violations: [{ quotaMetric: "generativelanguage.googleapis.com/generate_content_free_tier_requests", quotaId: "GenerateRequestsPerMinutePerProjectPerModel-FreeTier", quotaValue: String(limit) }] },
        { "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay },
      ],
    },
  };
}

describe("Gemini rate limits", () => {
  test("a 429 whose body carries RetryInfo.retryDelay is retried after that delay, not the backoff", async () => {
    const { home, repo } = workspace();
    standin.setScript([{ status: 429, errorBody: geminiQuotaError("1.5s", 5) }, { text: "after the wait" }]);
    const started = performance.now();
    const result = await runAgent(["-p", "--model", "google/gemini-4-carbon", "hi"], { home, cwd: repo, env: gemini() });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("after the wait");
    expect(result.stderr).toContain("retrying in 1.5 s");
    // OMP_RETRY_BASE_MS is 20 in tests: only the provider's delay explains the wait.
    expect(performance.now() - started).toBeGreaterThan(1400);
  });

  test("a quota of zero is not retried: the error says the model needs a paid tier", async () => {
    const { home, repo } = workspace();
    standin.setScript([{ status: 429, errorBody: geminiQuotaError("30s", 0) }, { text: "never" }]);
    const before = modelRequests(standin).length;
    const result = await runAgent(["-p", "--model", "google/gemini-4-carbon", "hi"], { home, cwd: repo, env: gemini() });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain("needs a paid tier");
    expect(result.stderr).not.toContain("retrying");
    expect(modelRequests(standin).length - before).toBe(1);
  });
});

describe("streams", () => {
  test("a response that stays silent past retry.idleTimeoutSeconds is given up and sent again, with a clear message", async () => {
    const { home, repo } = workspace();
    config(home, "retry:\n  idleTimeoutSeconds: 1\n");
    standin.setScript([{ text: "never arrives", delayMs: 10_000 }, { text: "second try" }]);
    const started = performance.now();
    const result = await runAgent(["-p", "--model", "anthropic/claude-opus-5-5", "hi"], { home, cwd: repo, env: { ANTHROPIC_BASE_URL: standin.url, ANTHROPIC_API_KEY: key("ant") } });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("second try");
    expect(result.stderr).toContain("no data from");
    expect(result.stderr).toContain("for 1 s; the connection stalled");
    expect(performance.now() - started).toBeLessThan(8000);
  });

  test("an overload that breaks off an answer before any tool call is asked again; the full answer arrives", async () => {
    const { home, repo } = workspace();
    standin.setScript([{ text: "the first half of", streamErrorAfterEvents: 4 }, { text: "the whole answer" }]);
    const result = await runAgent(["-p", "--model", "anthropic/claude-opus-5-5", "hi"], { home, cwd: repo, env: { ANTHROPIC_BASE_URL: standin.url, ANTHROPIC_API_KEY: key("ant") } });
    expect(result.code).toBe(0);
    expect(result.stdout.trimEnd().split("\n").at(-1)).toBe("the whole answer");
    expect(result.stderr).toContain("broke off the answer above");
  });
});

describe("unreachable providers fail at once with the cause and the fix", () => {
  test("-p against a host that cannot be resolved fails within 20 s, the whole cause said, no retries", async () => {
    const { home, repo } = workspace();
    const started = performance.now();
    const result = await runAgent(["-p", "--model", "anthropic/claude-opus-5-5", "hi"], { home, cwd: repo, env: { ANTHROPIC_BASE_URL: "https://omp-no-such-host.invalid", ANTHROPIC_API_KEY: key("ant") } });
    expect(performance.now() - started).toBeLessThan(20_000);
    expect(result.code).toBe(1);
    expect(result.stderr).not.toContain("retrying in");
    const line = result.stderr.split("\n").find((l) => l.startsWith("omp: "))!;
    expect(line).toContain("the host omp-no-such-host.invalid cannot be found");
    // The fix, at the end of a line longer than 120 columns, is there whole.
    expect(line).toMatch(/Check the provider's base URL \(https:\/\/omp-no-such-host\.invalid\) for a typo, and that this machine's DNS or proxy \(HTTPS_PROXY\) can resolve it\.$/);
    expect(line.length).toBeGreaterThan(120);
  });

  test("a TLS server whose certificate is not trusted fails at once, naming NODE_EXTRA_CA_CERTS; plain HTTP on an https:// URL is named too", async () => {
    const { home, repo } = workspace();
    const cert = join(home, "cert.pem");
    const pem = join(home, "key.pem");
    const made = Bun.spawnSync(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", pem, "-out", cert, "-days", "1", "-subj", "/CN=127.0.0.1"], { stderr: "pipe" });
    expect(made.exitCode).toBe(0);
    const tls = Bun.serve({ port: 0, hostname: "127.0.0.1", tls: { cert: Bun.file(cert), key: Bun.file(pem) }, fetch: () => new Response("{}") });
    const plain = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("{}") });
    try {
      const untrusted = await runAgent(["-p", "--model", "anthropic/claude-opus-5-5", "hi"], { home, cwd: repo, env: { ANTHROPIC_BASE_URL: `https://127.0.0.1:${tls.port}`, ANTHROPIC_API_KEY: key("ant") } });
      expect(untrusted.code).toBe(1);
      expect(untrusted.stderr).not.toContain("retrying in");
      expect(untrusted.stderr).toContain(`the TLS connection to https://127.0.0.1:${tls.port} failed`);
      expect(untrusted.stderr).toContain("NODE_EXTRA_CA_CERTS");
      const wrongScheme = await runAgent(["-p", "--model", "anthropic/claude-opus-5-5", "hi"], { home, cwd: repo, env: { ANTHROPIC_BASE_URL: `https://127.0.0.1:${plain.port}`, ANTHROPIC_API_KEY: key("ant") } });
      expect(wrongScheme.code).toBe(1);
      expect(wrongScheme.stderr).not.toContain("retrying in");
      expect(wrongScheme.stderr).toContain("may not speak HTTPS on that port (use http:// in the base URL");
    } finally {
      tls.stop(true);
      plain.stop(true);
    }
  });
});

describe("OpenAI-compatible services", () => {
  test("Mistral gets no stream_options (it answers 422 to them); OpenRouter does", async () => {
    const { home, repo } = workspace();
    standin.setScript([{ text: "bonjour" }, { text: "hello" }]);
    const env = { MISTRAL_BASE_URL: `${standin.url}/v1`, MISTRAL_API_KEY: key("mis"), OPENROUTER_BASE_URL: `${standin.url}/v1`, OPENROUTER_API_KEY: key("orr") };
    expect((await runAgent(["-p", "--model", "mistral/devstral-medium-latest", "hi"], { home, cwd: repo, env })).code).toBe(0);
    expect(modelRequests(standin).at(-1)!.body).not.toHaveProperty("stream_options");
    expect((await runAgent(["-p", "--model", "openrouter/qwen/qwen3-coder", "hi"], { home, cwd: repo, env })).code).toBe(0);
    expect(modelRequests(standin).at(-1)!.body.stream_options).toEqual({ include_usage: true });
  });

  test("xAI's Grok 4.x takes reasoning_effort", async () => {
    const { home, repo } = workspace();
    standin.setScript([{ text: "grok" }]);
    const env = { XAI_BASE_URL: `${standin.url}/v1`, XAI_API_KEY: key("xai") };
    expect((await runAgent(["-p", "--model", "xai/grok-4.5", "--thinking", "high", "hi"], { home, cwd: repo, env })).code).toBe(0);
    expect(modelRequests(standin).at(-1)!.body.reasoning_effort).toBe("high");
  });
});

describe("prompt caching and reasoning on OpenAI-compatible routes", () => {
  test("OpenRouter to an Anthropic model: cache_control on the system prompt and the last message, reasoning_details sent back, cache hits counted", async () => {
    const { home, repo } = workspace();
    const env = { OPENROUTER_BASE_URL: `${standin.url}/v1`, OPENROUTER_API_KEY: key("orr") };
    standin.setScript([
      { thinking: "let me look", reasoningDetails: true, toolCalls: [{ name: "read", arguments: { path: "." } }], usage: { input: 50, cacheWrite: 4000 } },
      { text: "done", usage: { input: 60, cacheRead: 4000, output: 5 } },
    ]);
    const result = await runAgent(["-p", "--mode", "json", "--model", "openrouter/anthropic/claude-opus-5.5", "list"], { home, cwd: repo, env });
    expect(result.code).toBe(0);
    const [first, second] = modelRequests(standin).slice(-2).map((r) => r.body);
    const system = first.messages[0];
    expect(system.role).toBe("system");
    expect(system.content.at(-1).cache_control).toEqual({ type: "ephemeral" });
    expect(first.messages.at(-1).content.at(-1).cache_control).toEqual({ type: "ephemeral" });
    const last = second.messages.at(-1);
    expect(last.role).toBe("tool");
    expect(last.content.at(-1).cache_control).toEqual({ type: "ephemeral" });
    const assistant = second.messages.find((m: any) => m.role === "assistant");
    expect(assistant.reasoning_details).toEqual([{ type: "reasoning.text", index: 0, format: "anthropic-claude-v1", text: "let me look", signature: expect.stringMatching(/^sig_or_/) }]);
    const end = result.stdout.trim().split("\n").map((l) => JSON.parse(l)).find((f) => f.type === "agent_end");
    expect(end.usage.cacheRead).toBe(4000);
    expect(end.usage.cacheWrite).toBe(4000);
  });
});
