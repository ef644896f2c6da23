// The agent when things go wrong, for each provider wire API: killed mid-turn, interrupted,
// rate-limited, streams cut before and after output, run limits.
import { describe, expect, test } from "bun:test";
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  LineReader,
  assistantTextsOf,
  filesContaining,
  modelRequests,
  agentTestFile,
  providerCases,
  providerTable,
  readJsonl,
  runAgent,
  sessionFiles,
  spawnOmp,
  toolCallsOf,
  toolResultsOf,
  userTextsOf,
  workspace,
} from "../support/agent-harness.ts";

const standin = await agentTestFile();

const cases = providerTable();

/** Spawns omp and resolves once stdout shows `text` (the model's reply is streaming). */
async function spawnUntil(args: string[], text: string, options: { home: string; cwd: string; env: Record<string, string> }) {
  const child = spawnOmp(args, options);
  child.stdin.end();
  const out = new LineReader(child.stdout);
  const stderr = new Response(child.stderr).text();
  await out.waitForText(text);
  return { child, out, stderr };
}

describe.each(cases)("faults over %s", (_api, provider) => {
  test("SIGKILL mid-turn leaves a session that loads: -c sees everything written before the kill", async () => {
    const { home, repo } = workspace();
    standin.setScript([
      { toolCalls: [{ id: "call_bash_1", name: "bash", arguments: { command: "echo marker-$((40+2))" } }] },
      { text: "This reply is streaming when omp is killed.", pauseAfterEvents: provider.firstText, pauseMs: 30_000 },
      { text: "Resumed fine." },
    ]);
    standin.requests.length = 0;
    const env = provider.env(standin.url);
    // json mode shows the stream arriving, so the kill lands mid-reply.
    const { child } = await spawnUntil(["--mode", "json", "--model", provider.model, "run the marker"], '"text_delta"', { home, cwd: repo, env });
    child.kill("SIGKILL");
    expect(await child.exited).not.toBe(0);

    const [file] = sessionFiles(home);
    const before = readJsonl(file!);
    expect(before[0].type).toBe("session");
    expect(before.filter((e) => e.type === "message").map((e) => e.message.role)).toEqual(["user", "assistant", "toolResult"]);
    // A torn last line, as a crash during a write leaves it, is skipped too.
    appendFileSync(file!, '{"type":"message","id":"torn","parentId":');

    const resumed = await runAgent(["-p", "-c", "--model", provider.model, "continue"], { home, cwd: repo, env });
    expect(resumed.stderr).not.toContain("omp:");
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toBe("Resumed fine.\n");
    const last = modelRequests(standin).at(-1)!.body;
    expect(userTextsOf(provider.api, last)).toEqual(["run the marker", "continue"]);
    expect(toolCallsOf(provider.api, last).map((c) => c.name)).toEqual(["bash"]);
    expect(toolResultsOf(provider.api, last)[0]!.text).toContain("marker-42");
    expect(JSON.stringify(last)).not.toContain("streaming when omp is killed");
    expect(sessionFiles(home)).toEqual([file!]);
    const after = readJsonl(file!);
    expect(after.filter((e) => e.type === "message").map((e) => e.message.role)).toEqual(["user", "assistant", "toolResult", "user", "assistant"]);
    expect(readFileSync(file!, "utf8")).not.toContain('"torn"');
    expect(filesContaining([home, repo], provider.key)).toEqual([]);
  });

  test("a 429 with retry-after is waited out as asked, then the answer arrives", async () => {
    const { home, repo } = workspace();
    standin.setScript([{ status: 429, retryAfter: 0.3 }, { text: "After the rate limit." }]);
    standin.requests.length = 0;
    const started = Date.now();
    const result = await runAgent(["-p", "--model", provider.model, "hello"], { home, cwd: repo, env: provider.env(standin.url) });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("After the rate limit.\n");
    // The wait came from the header (base backoff in tests is 20 ms).
    expect(result.stderr).toMatch(/retrying in 0\.3 s \(attempt 1\): .*429/);
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    expect(modelRequests(standin).length).toBe(2);
  });

  test("a stream cut before any output is retried and recovers", async () => {
    const { home, repo } = workspace();
    standin.setScript([
      { text: "Lost reply.", cutAfterEvents: provider.preamble, cutMode: "reset" },
      { text: "Lost again.", cutAfterEvents: provider.preamble, cutMode: "close" },
      { text: "Whole reply." },
    ]);
    standin.requests.length = 0;
    const result = await runAgent(["-p", "--model", provider.model, "hello"], { home, cwd: repo, env: provider.env(standin.url) });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("Whole reply.\n");
    expect(result.stderr.match(/retrying in/g)?.length).toBe(2);
    expect(modelRequests(standin).length).toBe(3);
    const [file] = sessionFiles(home);
    const replies = readJsonl(file!).filter((e) => e.type === "message" && e.message.role === "assistant");
    expect(replies.map((e) => e.message.content)).toEqual([[{ type: "text", text: "Whole reply." }]]);
  });

  test("a stream reset after output, before any tool call, is asked again: the whole answer once, exit 0", async () => {
    const { home, repo } = workspace();
    const text = "The first half of the answer, and then the connection drops, and the rest of it.";
    standin.setScript([{ text, cutAfterEvents: provider.firstText + 1, cutMode: "reset" }, { text }]);
    standin.requests.length = 0;
    const result = await runAgent(["-p", "--model", provider.model, "hello"], { home, cwd: repo, env: provider.env(standin.url) });
    expect({ code: result.code, stdout: result.stdout }).toEqual({ code: 0, stdout: `${text}\n` });
    expect(result.stderr).toContain("retrying in");
    expect(modelRequests(standin).length).toBe(2);
    const [file] = sessionFiles(home);
    const replies = readJsonl(file!).filter((e) => e.type === "message" && e.message.role === "assistant");
    expect(replies.map((e) => e.message.content)).toEqual([[{ type: "text", text }]]);
  });

  test("a stream cut after output on every attempt is reported, shown once, not passed off as the answer", async () => {
    const { home, repo } = workspace();
    const text = "The first half of the answer, and then the connection drops.";
    mkdirSync(join(home, ".omp", "agent"), { recursive: true });
    writeFileSync(join(home, ".omp", "agent", "config.yml"), "retry:\n  maxRetries: 2\n");
    standin.setScript(Array.from({ length: 3 }, () => ({ text, cutAfterEvents: provider.firstText + 1, cutMode: "close" as const })));
    standin.requests.length = 0;
    const result = await runAgent(["-p", "--model", provider.model, "hello"], { home, cwd: repo, env: provider.env(standin.url) });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/omp: .*cut off/);
    expect(modelRequests(standin).length).toBe(3);
    // What had arrived was shown once, but it is not the whole answer.
    expect(text.startsWith(result.stdout.trimEnd())).toBe(true);
    expect(result.stdout.trimEnd().length).toBeLessThan(text.length);
    const [file] = sessionFiles(home);
    const reply = readJsonl(file!).find((e) => e.type === "message" && e.message.role === "assistant");
    expect(reply.message.stopReason).toBe("error");
    expect(reply.message.errorMessage).toContain("cut off");

    // The failed reply is not replayed to the provider on -c.
    standin.setScript([{ text: "Second try." }]);
    standin.requests.length = 0;
    const again = await runAgent(["-p", "-c", "--model", provider.model, "again"], { home, cwd: repo, env: provider.env(standin.url) });
    expect(again.code).toBe(0);
    expect(assistantTextsOf(provider.api, modelRequests(standin)[0]!.body)).toEqual([]);
    expect(userTextsOf(provider.api, modelRequests(standin)[0]!.body)).toEqual(["hello", "again"]);
  });
});

describe.each(cases)("provider errors over %s", (_api, provider) => {
  test("a rejected key (401) is reported at once, with the provider's message, and not retried", async () => {
    const { home, repo } = workspace();
    standin.setScript([{ status: 401 }, { text: "must not be asked for" }]);
    standin.requests.length = 0;
    const result = await runAgent(["-p", "--model", provider.model, "hello"], { home, cwd: repo, env: provider.env(standin.url) });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/omp: .*401/);
    expect(result.stderr).not.toContain("retrying");
    expect(modelRequests(standin).length).toBe(1);
    expect(filesContaining([home, repo], provider.key)).toEqual([]);
    // It names where the refused key came from, so the user knows what to fix.
    const keyVar = Object.keys(provider.env(standin.url)).find((name) => name.endsWith("_API_KEY"))!;
    expect(result.stderr).toContain(`the key came from the environment variable ${keyVar}: set it to a valid key`);
    standin.setScript([{ status: 401 }]);
    const flagged = await runAgent(["-p", "--model", provider.model, "--api-key", "omptest-typed-key", "hello"], { home, cwd: repo, env: provider.env(standin.url) });
    expect(flagged.code).toBe(1);
    expect(flagged.stderr).toContain("the key came from --api-key: pass the right one");
    expect(flagged.stderr).not.toContain("omptest-typed-key");
  });

  test("a server error that persists is retried, then reported with the number of attempts", async () => {
    const { home, repo } = workspace();
    writeFileSync(join(home, "retry.yml"), "retry:\n  maxRetries: 2\n");
    standin.setScript([{ status: 500 }, { status: 500 }, { status: 500 }, { text: "must not be asked for" }]);
    standin.requests.length = 0;
    const result = await runAgent(["-p", "--config", join(home, "retry.yml"), "--model", provider.model, "hello"], { home, cwd: repo, env: provider.env(standin.url) });
    expect(result.code).toBe(1);
    expect(result.stderr.match(/retrying in/g)?.length).toBe(2);
    expect(result.stderr).toMatch(/omp: .*500.*gave up after 3 attempts/);
    expect(modelRequests(standin).length).toBe(3);
  });

  test("an answer cut by the model's output limit is printed with a warning", async () => {
    const { home, repo } = workspace();
    standin.setScript([{ text: "The beginning of a long", stop: "length" }]);
    const result = await runAgent(["-p", "--model", provider.model, "hello"], { home, cwd: repo, env: provider.env(standin.url) });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("The beginning of a long\n");
    expect(result.stderr).toContain("output limit");
  });
});

describe("print mode limits and signals", () => {
  const provider = providerCases()[0]!;

  test("Ctrl-C (SIGINT) stops the run: exit 130, the session is kept and -c continues it", async () => {
    const { home, repo } = workspace();
    standin.setScript([{ text: "A long answer, interrupted by the user.", pauseAfterEvents: provider.firstText, pauseMs: 30_000 }, { text: "Picked up." }]);
    standin.requests.length = 0;
    const env = provider.env(standin.url);
    const { child, out, stderr } = await spawnUntil(["-p", "--model", provider.model, "write a lot"], "A", { home, cwd: repo, env });
    child.kill("SIGINT");
    expect(await child.exited).toBe(130);
    await out.done;
    expect(await stderr).toContain("interrupted");
    expect(modelRequests(standin)[0]!.disconnected).toBe(true);
    const [file] = sessionFiles(home);
    const messages = readJsonl(file!).filter((e) => e.type === "message");
    expect(messages.map((e) => [e.message.role, e.message.stopReason])).toEqual([
      ["user", undefined],
      ["assistant", "aborted"],
    ]);
    const again = await runAgent(["-p", "-c", "--model", provider.model, "go on"], { home, cwd: repo, env });
    expect(again.code).toBe(0);
    expect(again.stdout).toBe("Picked up.\n");
    expect(userTextsOf(provider.api, modelRequests(standin)[1]!.body)).toEqual(["write a lot", "go on"]);
  });

  test("--max-turns stops a model that keeps calling tools: non-zero exit and a message", async () => {
    const { home, repo } = workspace();
    const step = { toolCalls: [{ name: "ls", arguments: {} }] };
    standin.setScript([step, step, step, step, { text: "never reached" }]);
    standin.requests.length = 0;
    const result = await runAgent(["-p", "--max-turns", "2", "--model", provider.model, "loop"], { home, cwd: repo, env: provider.env(standin.url) });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("omp: stopped after 2 model requests (--max-turns)");
    expect(modelRequests(standin).length).toBe(2);
    expect(result.stdout).toBe("");
  });

  test("--max-time stops a run that takes too long: non-zero exit and a message", async () => {
    const { home, repo } = workspace();
    standin.setScript([{ text: "slow", delayMs: 30_000 }]);
    standin.requests.length = 0;
    const started = Date.now();
    const result = await runAgent(["-p", "--max-time", "0.5", "--model", provider.model, "slow"], { home, cwd: repo, env: provider.env(standin.url) });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(result.code).toBe(124);
    expect(result.stderr).toContain("omp: stopped after 0.5 s (--max-time)");
  });

  test("--max-time also stops a tool that runs too long", async () => {
    const { home, repo } = workspace();
    standin.setScript([{ toolCalls: [{ name: "bash", arguments: { command: "sleep 30; echo done > late.txt" } }] }, { text: "never reached" }]);
    standin.requests.length = 0;
    const started = Date.now();
    const result = await runAgent(["-p", "--max-time", "1", "--model", provider.model, "sleep"], { home, cwd: repo, env: provider.env(standin.url) });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(result.code).toBe(124);
    expect(result.stderr).toContain("--max-time");
    expect(modelRequests(standin).length).toBe(1);
  });
});
