// The agent doing a real multi-step task in a git repository, for each provider wire API: read,
// grep, edit, run the test with bash; and resuming that session with -c / -r.
import { describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  assistantTextsOf,
  filesContaining,
  modelRequests,
  agentTestFile,
  providerCases,
  providerTable,
  readJsonl,
  runAgent,
  sessionFiles,
  toolCallsOf,
  toolResultsOf,
  userTextsOf,
  workspace,
} from "../support/agent-harness.ts";
import type { Turn } from "../support/standin/index.ts";

const TASK = "add() in src/math.sh subtracts; fix it and run ./test.sh";
const ANSWER = "Fixed add() in src/math.sh: it now adds, and test.sh passes.";

/** GPT models edit with apply_patch (core/tools/edit/mode.ts), the others with edit. */
const editToolOf = (api: string) => (api === "openai-responses" ? "apply_patch" : "edit");

const fixScript = (api = "anthropic-messages"): Turn[] => [
  { text: "Let me look at the file.", toolCalls: [{ id: "call_read_1", name: "read", arguments: { path: "src/math.sh" } }] },
  { toolCalls: [{ id: "call_grep_2", name: "grep", arguments: { pattern: "add", literal: true } }] },
  {
    toolCalls: [
      editToolOf(api) === "apply_patch"
        ? { id: "call_edit_3", name: "apply_patch", arguments: { input: "*** Begin Patch\n*** Update File: src/math.sh\n@@ add() {\n-  echo $(( $1 - $2 ))\n+  echo $(( $1 + $2 ))\n*** End Patch" } }
        : { id: "call_edit_3", name: "edit", arguments: { path: "src/math.sh", edits: [{ oldText: "$1 - $2", newText: "$1 + $2" }] } },
    ],
  },
  { toolCalls: [{ id: "call_bash_4", name: "bash", arguments: { command: "sh ./test.sh" } }] },
  { text: ANSWER },
];

const standin = await agentTestFile();

describe.each(providerTable())("agent over %s", (_api, provider) => {
  test("reads, greps, edits and runs the test; each request carries the earlier tool results", async () => {
    const { home, repo } = workspace();
    standin.setScript(fixScript(provider.api));
    standin.requests.length = 0;
    const result = await runAgent(["-p", "--model", provider.model, TASK], { home, cwd: repo, env: provider.env(standin.url) });
    expect(result.stderr).not.toContain("omp:");
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`Let me look at the file.\n${ANSWER}\n`);
    // Progress, not the answer, on stderr.
    expect(result.stderr).toContain("→ read src/math.sh");
    expect(result.stderr).toContain("→ bash sh ./test.sh");
    expect(result.stderr).not.toContain(ANSWER);

    expect(readFileSync(join(repo, "src/math.sh"), "utf8")).toBe("add() {\n  echo $(( $1 + $2 ))\n}\n");

    const requests = modelRequests(standin);
    expect(requests.map((r) => r.format)).toEqual(Array(5).fill(formatName(provider.api)));
    const bodies = requests.map((r) => r.body);
    expect(userTextsOf(provider.api, bodies[0])).toEqual([TASK]);
    expect(toolResultsOf(provider.api, bodies[0])).toEqual([]);

    // Request n carries the results of the n tool calls before it, in order, each answering its call.
    const expected = [
      (text: string) => expect(text).toContain("echo $(( $1 - $2 ))"),
      (text: string) => expect(text).toMatch(/src\/math\.sh\n +1: add\(\) \{/),
      (text: string) => expect(text).toContain("+  echo $(( $1 + $2 ))"),
      (text: string) => expect(text).toContain("PASS add 2 3 = 5"),
    ];
    const callIds = ["call_read_1", "call_grep_2", "call_edit_3", "call_bash_4"];
    const names = ["read", "grep", editToolOf(provider.api), "bash"];
    for (let n = 1; n <= 4; n++) {
      const results = toolResultsOf(provider.api, bodies[n]);
      expect(results.length).toBe(n);
      for (let i = 0; i < n; i++) {
        expected[i]!(results[i]!.text);
        expect(results[i]!.isError ?? false).toBe(false);
        // Gemini pairs a functionResponse with its call by name; the others by id.
        expect(results[i]!.id).toBe(provider.api === "google-generative-ai" ? names[i]! : callIds[i]!);
      }
      expect(toolCallsOf(provider.api, bodies[n]).map((c) => c.name)).toEqual(names.slice(0, n));
      expect(userTextsOf(provider.api, bodies[n])).toEqual([TASK]);
    }
    expect(assistantTextsOf(provider.api, bodies[4])).toEqual(["Let me look at the file."]);

    // The session holds the whole conversation, and no file omp wrote holds the key.
    const [session] = sessionFiles(home);
    expect(session).toBeDefined();
    const entries = readJsonl(session!);
    expect(entries[0].type).toBe("session");
    expect(entries[0].cwd).toBe(realpathSync(repo));
    const roles = entries.filter((e) => e.type === "message").map((e) => e.message.role);
    expect(roles).toEqual(["user", "assistant", "toolResult", "assistant", "toolResult", "assistant", "toolResult", "assistant", "toolResult", "assistant"]);
    expect(filesContaining([home, repo], provider.key)).toEqual([]);
  });

  test("-c resumes with the full context; -r <prefix> resumes that session; -r alone lists", async () => {
    const { home, repo } = workspace();
    const env = provider.env(standin.url);
    standin.setScript([
      { toolCalls: [{ id: "call_ls_1", name: "ls", arguments: {} }] },
      { text: "The repo has src, README.md and test.sh." },
      { text: "Second answer." },
      { text: "Third answer." },
    ]);
    standin.requests.length = 0;
    const first = await runAgent(["-p", "--model", provider.model, "what is in this repo?"], { home, cwd: repo, env });
    expect(first.code).toBe(0);
    const [path] = sessionFiles(home);
    const id: string = readJsonl(path!)[0].id;

    const second = await runAgent(["-p", "-c", "--model", provider.model, "and now?"], { home, cwd: repo, env });
    expect(second.code).toBe(0);
    expect(second.stdout).toBe("Second answer.\n");
    expect(sessionFiles(home)).toEqual([path!]);
    const requests = modelRequests(standin);
    expect(requests.length).toBe(3);
    const resumed = requests[2]!.body;
    // The first run's messages, then the new prompt.
    expect(userTextsOf(provider.api, resumed)).toEqual(["what is in this repo?", "and now?"]);
    expect(toolCallsOf(provider.api, resumed).map((c) => c.name)).toEqual(["ls"]);
    expect(toolResultsOf(provider.api, resumed)[0]!.text).toContain("test.sh");
    expect(assistantTextsOf(provider.api, resumed)).toEqual(["The repo has src, README.md and test.sh."]);

    // A second session, then -r with the first one's id prefix picks the first.
    standin.setScript([{ text: "Other session." }, { text: "Back in the first." }]);
    standin.requests.length = 0;
    const other = await runAgent(["-p", "--model", provider.model, "unrelated"], { home, cwd: repo, env });
    expect(other.code).toBe(0);
    expect(sessionFiles(home).length).toBe(2);
    const third = await runAgent(["-p", "-r", id.slice(0, 8), "--model", provider.model, "third"], { home, cwd: repo, env });
    expect(third.code).toBe(0);
    expect(third.stdout).toBe("Back in the first.\n");
    expect(userTextsOf(provider.api, modelRequests(standin)[1]!.body)).toEqual(["what is in this repo?", "and now?", "third"]);

    const listing = await runAgent(["-r"], { home, cwd: repo, env });
    expect(listing.code).toBe(0);
    expect(listing.stdout).toContain(id.slice(0, 8));
    expect(listing.stdout).toContain("what is in this repo?");
    expect(listing.stdout).toContain("unrelated");
    expect(listing.stdout.split("\n").filter((line) => /^[0-9a-f]{8} /.test(line)).length).toBe(2);
  });
});

describe("one session across providers", () => {
  test("-c on another provider's model carries the whole conversation over, tool calls paired with their results", async () => {
    const { home, repo } = workspace();
    const providers = providerCases();
    const env = Object.assign({}, ...providers.map((p) => p.env(standin.url)));
    // Each provider does one tool step and answers; the next one continues the session.
    const script: Turn[] = providers.flatMap((p, i) => [
      { text: `Step ${i} on ${p.api}.`, toolCalls: [{ id: `call_step_${i}`, name: "bash", arguments: { command: `echo from-${i}` } }] },
      { text: `Answer ${i}.` },
    ]);
    standin.setScript(script);
    standin.requests.length = 0;
    for (const [i, provider] of providers.entries()) {
      const result = await runAgent(["-p", ...(i > 0 ? ["-c"] : []), "--model", provider.model, `task ${i}`], { home, cwd: repo, env });
      expect(result.stderr).not.toContain("omp:");
      expect(result.code).toBe(0);
      expect(result.stdout).toBe(`Step ${i} on ${provider.api}.\nAnswer ${i}.\n`);
    }
    const requests = modelRequests(standin);
    expect(requests.map((r) => r.format as string)).toEqual(providers.flatMap((p) => [formatName(p.api), formatName(p.api)]));
    // The last provider's first request holds everything the three before it did.
    const last = providers.at(-1)!;
    const body = requests[6]!.body;
    expect(userTextsOf(last.api, body)).toEqual(["task 0", "task 1", "task 2", "task 3"]);
    expect(assistantTextsOf(last.api, body)).toEqual(["Step 0 on anthropic-messages.", "Answer 0.", "Step 1 on openai-responses.", "Answer 1.", "Step 2 on google-generative-ai.", "Answer 2."]);
    const calls = toolCallsOf(last.api, body);
    const results = toolResultsOf(last.api, body);
    expect(calls.length).toBe(3);
    expect(results.map((r) => r.text.trim())).toEqual(["from-0", "from-1", "from-2"].map((t) => expect.stringContaining(t)) as any);
    // Every result answers the call before it, by the id this provider was given for it.
    expect(results.map((r) => r.id)).toEqual(calls.map((c) => c.id));
    const entries = readJsonl(sessionFiles(home)[0]!);
    expect(entries.filter((e) => e.type === "model_change").map((e) => e.model)).toEqual(providers.map((p) => p.model));
  });
});

describe("automatic compaction", () => {
  test("near the context limit the model summarises older turns; the request and a later -c carry the summary instead", async () => {
    const { home, repo } = workspace();
    mkdirSync(join(home, ".omp", "agent"), { recursive: true });
    writeFileSync(
      join(home, ".omp", "agent", "models.yml"),
      `providers:\n  mylocal:\n    baseUrl: ${standin.url}/v1\n    api: openai-completions\n    auth: none\n    models:\n      - id: small-model\n        contextWindow: 10000\n`,
    );
    writeFileSync(join(home, ".omp", "agent", "config.yml"), "compaction:\n  reserveTokens: 2000\n  keepRecentTokens: 100\n");
    const run = (args: string[]) => runAgent(["-p", "--model", "mylocal/small-model", ...args], { home, cwd: repo });
    // The provider reports 9,000 tokens in context after the first answer: over 10,000 − 2,000.
    standin.setScript([
      { text: "First answer, long ago.", usage: { input: 9000 } },
      { text: "SUMMARY-OF-EARLIER-WORK" },
      { text: "Second answer." },
      { text: "Third answer." },
    ]);
    standin.requests.length = 0;
    expect((await run(["first question"])).code).toBe(0);
    const second = await run(["-c", "second question"]);
    expect(second.code).toBe(0);
    expect(second.stdout).toBe("Second answer.\n");
    expect(second.stderr).toContain("compacting the conversation");
    const [, summaryRequest, afterSummary] = modelRequests(standin);
    // The summary request carries the old turns as a transcript and no tools.
    expect(JSON.stringify(summaryRequest!.body.messages)).toContain("First answer, long ago.");
    expect(summaryRequest!.body.tools ?? []).toEqual([]);
    const texts = userTextsOf("openai-completions", afterSummary!.body);
    expect(texts.length).toBe(2);
    expect(texts[0]).toContain("SUMMARY-OF-EARLIER-WORK");
    expect(texts[1]).toBe("second question");
    expect(JSON.stringify(afterSummary!.body)).not.toContain("First answer, long ago.");
    const entries = readJsonl(sessionFiles(home)[0]!);
    expect(entries.filter((e) => e.type === "compaction").map((e) => e.summary)).toEqual(["SUMMARY-OF-EARLIER-WORK"]);

    const third = await run(["-c", "third question"]);
    expect(third.code).toBe(0);
    const resumed = userTextsOf("openai-completions", modelRequests(standin)[3]!.body);
    expect(resumed[0]).toContain("SUMMARY-OF-EARLIER-WORK");
    expect(resumed.slice(1)).toEqual(["second question", "third question"]);
    expect(JSON.stringify(modelRequests(standin)[3]!.body)).not.toContain("First answer, long ago.");
  });
});

/** How each wire API's provider refuses a request that no longer fits its context window. */
const OVERFLOW: Record<string, { status: number; message: string; kind: string }> = {
  "anthropic-messages": { status: 400, message: "prompt is too long: 210345 tokens > 200000 maximum", kind: "invalid_request_error" },
  "openai-responses": { status: 400, message: "Your input exceeds the context window of this model. Please adjust your input and try again.", kind: "context_length_exceeded" },
  "google-generative-ai": { status: 400, message: "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).", kind: "INVALID_ARGUMENT" },
  "openai-completions": { status: 400, message: "This model's maximum context length is 262144 tokens. However, your messages resulted in 270112 tokens.", kind: "context_length_exceeded" },
};

describe.each(providerTable())("context overflow over %s", (_api, provider) => {
  test("a request refused as too long is compacted and sent again; the refusal stays out of the context and the session", async () => {
    const { home, repo } = workspace();
    mkdirSync(join(home, ".omp", "agent"), { recursive: true });
    writeFileSync(join(home, ".omp", "agent", "config.yml"), "compaction:\n  keepRecentTokens: 5\n");
    const run = (args: string[]) => runAgent(["-p", "--model", provider.model, ...args], { home, cwd: repo, env: provider.env(standin.url) });
    standin.setScript([{ text: "First answer, long ago." }, OVERFLOW[provider.api]!, { text: "SUMMARY-OF-EARLIER-WORK" }, { text: "Second answer." }]);
    standin.requests.length = 0;
    expect((await run(["first question"])).code).toBe(0);
    const second = await run(["-c", "second question"]);
    expect(second.stderr).not.toContain("omp:");
    expect(second.code).toBe(0);
    expect(second.stdout).toBe("Second answer.\n");
    expect(second.stderr).toContain("compacting the conversation");

    const requests = modelRequests(standin);
    expect(requests).toHaveLength(4);
    // The refused request and its retry carry the same question; the retry has the summary instead of the old turns.
    expect(userTextsOf(provider.api, requests[1]!.body).at(-1)).toBe("second question");
    expect(JSON.stringify(requests[1]!.body)).toContain("First answer, long ago.");
    const retried = userTextsOf(provider.api, requests[3]!.body);
    expect(retried[0]).toContain("SUMMARY-OF-EARLIER-WORK");
    expect(retried.at(-1)).toBe("second question");
    expect(JSON.stringify(requests[3]!.body)).not.toContain("First answer, long ago.");

    const entries = readJsonl(sessionFiles(home)[0]!);
    expect(entries.filter((e) => e.type === "compaction").map((e) => e.summary)).toEqual(["SUMMARY-OF-EARLIER-WORK"]);
    const assistants = entries.filter((e) => e.type === "message" && e.message.role === "assistant");
    expect(assistants.map((e) => e.message.stopReason)).toEqual(["stop", "stop"]);
  });

  test("when compacting does not make it fit, the run fails with the provider's words and what to do", async () => {
    const { home, repo } = workspace();
    mkdirSync(join(home, ".omp", "agent"), { recursive: true });
    writeFileSync(join(home, ".omp", "agent", "config.yml"), "compaction:\n  keepRecentTokens: 5\n");
    const run = (args: string[]) => runAgent(["-p", "--model", provider.model, ...args], { home, cwd: repo, env: provider.env(standin.url) });
    const overflow = OVERFLOW[provider.api]!;
    standin.setScript([{ text: "First answer." }, overflow, { text: "SUMMARY" }, overflow]);
    standin.requests.length = 0;
    expect((await run(["first question"])).code).toBe(0);
    const second = await run(["-c", "second question"]);
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(overflow.message);
    expect(modelRequests(standin)).toHaveLength(4);
  });
});

function formatName(api: string): string {
  return api === "anthropic-messages" ? "anthropic" : api === "google-generative-ai" ? "google" : api;
}
