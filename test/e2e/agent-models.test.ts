// `omp models` and the providers' model lists, on the compiled binary: the stand-in's model-list
// endpoints (Anthropic's and Gemini's shapes) say what each provider serves now; omp caches that
// for a day, flags a catalog id that is gone before a request fails, and can use a new one.
import { describe, expect, test } from "bun:test";
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { agentTestFile, modelRequests, runAgent, workspace } from "../support/agent-harness.ts";
import { startStandin } from "../support/standin/index.ts";

await agentTestFile();

describe("model lists", () => {
  test("omp models lists what each provider serves, new and retired ids; the lists drive -m and warnings", async () => {
    const anthropic = await startStandin({ models: [{ id: "claude-opus-5-5" }, { id: "claude-opus-6", contextWindow: 2_000_000 }, { id: "claude-haiku-5-5" }] });
    const google = await startStandin({ models: [{ id: "gemini-4-carbon" }, { id: "gemini-5-pro" }] });
    try {
      const { home, repo } = workspace();
      const env = {
        ANTHROPIC_BASE_URL: anthropic.url,
        ANTHROPIC_API_KEY: `omptest_ant_${crypto.randomUUID()}`,
        GEMINI_BASE_URL: google.url,
        GEMINI_API_KEY: `omptest_gem_${crypto.randomUUID()}`,
      };
      const listed = await runAgent(["models"], { home, cwd: repo, env });
      expect(listed.code).toBe(0);
      const line = (id: string) => listed.stdout.split("\n").find((l) => l.trim().startsWith(`${id} `) || l.trim() === id) ?? "";
      expect(line("anthropic/claude-opus-6")).toContain("new");
      expect(line("anthropic/claude-opus-5-5")).not.toContain("new");
      expect(line("anthropic/claude-sonnet-4-5")).toContain("retired");
      expect(line("google/gemini-5-pro")).toContain("new");
      expect(line("google/gemini-2.5-pro")).toContain("retired");
      expect(listed.stdout).not.toContain("openai/");
      const gets = (s: typeof anthropic) => s.requests.filter((r) => r.method === "GET").length;
      expect(gets(anthropic)).toBe(1);
      expect(anthropic.requests[0]!.headers["x-api-key"]).toBe(env.ANTHROPIC_API_KEY);
      expect(google.requests[0]!.path).toBe("/v1beta/models");
      const db = join(home, ".omp", "agent", "model-lists.db");
      expect(existsSync(db)).toBe(true);
      expect(statSync(db).mode & 0o777).toBe(0o600);

      // Cached for the day; --refresh asks again.
      await runAgent(["models"], { home, cwd: repo, env });
      expect(gets(anthropic)).toBe(1);
      await runAgent(["models", "--refresh", "--json"], { home, cwd: repo, env });
      expect(gets(anthropic)).toBe(2);

      // A retired id is flagged before the request fails.
      anthropic.setScript([{ text: "old model answered" }, { text: "newest opus" }]);
      const old = await runAgent(["-p", "--model", "anthropic/claude-sonnet-4-5", "hi"], { home, cwd: repo, env });
      expect(old.stderr).toContain("anthropic no longer lists claude-sonnet-4-5");
      // A fuzzy name picks the newest of its family, the new one included.
      const newest = await runAgent(["-p", "--model", "opus", "hi"], { home, cwd: repo, env });
      expect(newest.code).toBe(0);
      expect(newest.stderr).toBe("");
      expect(modelRequests(anthropic).at(-1)!.body.model).toBe("claude-opus-6");
    } finally {
      await anthropic.close();
      await google.close();
    }
  });
});
