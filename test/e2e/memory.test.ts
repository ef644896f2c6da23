// Long-term memory (the original's retain / recall / reflect on its local SQLite backend) in the
// compiled omp: what one session retains the next session of the same project recalls and its
// first prompt brings along, another project does not (unless the bank is global); memory:// reads
// it; secrets never reach the database; model text is never FTS syntax.
import { expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { agentTestFile, filesContaining, modelRequests, runAgent, systemPromptOf, toolNamesOf, toolResultsOf, userTextsOf, workspace } from "../support/agent-harness.ts";

const standin = await agentTestFile();
const MODEL = "anthropic/claude-sonnet-4-5";
const KEY = "sk-ant-memory-test-key-0123456789";
const env = { ANTHROPIC_BASE_URL: standin.url, ANTHROPIC_API_KEY: KEY };
const API = "anthropic-messages";

function config(home: string, text: string): void {
  mkdirSync(join(home, ".omp", "agent"), { recursive: true });
  writeFileSync(join(home, ".omp", "agent", "config.yml"), text);
}

/** One print-mode run whose model makes `calls` and then answers; the tool results, and the first request's system prompt, prompt and tools. */
async function session(home: string, cwd: string, calls: { name: string; arguments: Record<string, unknown> }[], prompt = "go") {
  standin.setScript(calls.length > 0 ? [{ toolCalls: calls }, { text: "done" }] : [{ text: "done" }]);
  standin.requests.length = 0;
  const run = await runAgent(["-p", "--model", MODEL, prompt], { home, cwd, env });
  expect(run.code).toBe(0);
  const requests = modelRequests(standin);
  return {
    results: calls.length > 0 ? toolResultsOf(API, requests[1]!.body) : [],
    system: systemPromptOf(API, requests[0]!.body),
    prompt: userTextsOf(API, requests[0]!.body)[0]!,
    tools: toolNamesOf(API, requests[0]!.body),
    // The memory tools are found through search_tool_bm25 (kept out of the first request): its description names them.
    findable: String((requests[0]!.body.tools as { name: string; description: string }[] | undefined)?.find((tool) => tool.name === "search_tool_bm25")?.description ?? ""),
    stderr: run.stderr,
  };
}

const FACT = "Releases are cut with make release after setting NODE_ENV=staging";

test("retain in one session is recalled by the next in the same project and comes with its first prompt; not in another project", async () => {
  const ws = workspace();
  const other = workspace();
  const first = await session(ws.home, ws.repo, [{ name: "retain", arguments: { items: [{ content: FACT, context: "the user said so" }] } }]);
  for (const name of ["retain", "recall", "reflect"]) expect(first.findable).toContain(name);
  expect(first.results[0]!.text).toBe("1 memory stored.");
  expect(first.prompt).not.toContain("<memories>");

  const next = await session(ws.home, ws.repo, [
    { name: "recall", arguments: { query: "how do we cut a release?" } },
    { name: "reflect", arguments: { query: "release process", context: "staging" } },
    { name: "recall", arguments: { query: "kubernetes helm chart" } },
  ]);
  const [recall, reflect, miss] = next.results;
  expect(recall!.text).toMatch(/^Found 1 relevant memory \(as of \d{4}-\d\d-\d\d \d\d:\d\d UTC\):\n\n- Releases are cut with make release after setting NODE_ENV=staging \(id: 1\) \[the user said so\] \(\d{4}-\d\d-\d\d\) c:1\.00$/);
  expect(reflect!.text).toStartWith("Based on recalled memories:\n\n- Releases are cut");
  expect(miss!.text).toBe("No relevant memories found.");
  // The next session's first prompt brings the project's memories, as a note before the user's words;
  // the system prompt (and so the provider's prompt cache) is the same with memories as without.
  expect(next.prompt).toStartWith("<system-reminder>\n<memories>\n");
  expect(next.prompt).toContain(`- ${FACT} (id: 1)`);
  expect(next.prompt).toEndWith("</system-reminder>\ngo");
  expect(next.system).toBe(first.system);
  // Listings name the session by what the user asked, not by the note.
  const listing = await runAgent(["-r"], { home: ws.home, cwd: ws.repo, env });
  expect(listing.stdout).toContain("Recent sessions");
  expect(listing.stdout).not.toContain("memories");
  expect(listing.stdout).not.toContain("system-reminder");

  const elsewhere = await session(ws.home, other.repo, [{ name: "recall", arguments: { query: "release" } }]);
  expect(elsewhere.results[0]!.text).toBe("No relevant memories found.");
  expect(elsewhere.prompt).toBe("go");
});

test("a global bank is shared by every project; per-project-tagged recalls the project's and the global memories", async () => {
  const a = workspace();
  const b = workspace();
  config(a.home, "mnemopi:\n  scoping: global\n");
  await session(a.home, a.repo, [{ name: "retain", arguments: { items: [{ content: "The user prefers tabs over spaces in every project" }] } }]);
  const fromB = await session(a.home, b.repo, [{ name: "recall", arguments: { query: "tabs or spaces" } }]);
  expect(fromB.results[0]!.text).toContain("- The user prefers tabs over spaces in every project");

  config(a.home, "mnemopi:\n  scoping: per-project-tagged\n");
  await session(a.home, b.repo, [{ name: "retain", arguments: { items: [{ content: "Project B indents its YAML with tabs too" }] } }]);
  const tagged = await session(a.home, b.repo, [{ name: "recall", arguments: { query: "tabs" } }]);
  expect(tagged.results[0]!.text).toContain("Found 2 relevant memories");
  // The tagged write went to B's own bank: A, also tagged, sees only the global one.
  const fromA = await session(a.home, a.repo, [{ name: "recall", arguments: { query: "tabs" } }]);
  expect(fromA.results[0]!.text).toContain("Found 1 relevant memory");
  expect(fromA.results[0]!.text).not.toContain("Project B");
});

test("a first prompt brings the memories that match it before the newest, within recallLimit and injectionTokenLimit", async () => {
  const ws = workspace();
  await session(ws.home, ws.repo, [{ name: "retain", arguments: { items: [{ content: "The flaky test is tests/net/retry.spec.ts; rerun it alone" }] } }]);
  await session(ws.home, ws.repo, [{ name: "retain", arguments: { items: Array.from({ length: 6 }, (_, i) => ({ content: `Unrelated fact number ${i} about the build` })) } }]);
  config(ws.home, "mnemopi:\n  recallLimit: 3\n");
  const asked = await session(ws.home, ws.repo, [], "why does the retry spec fail?");
  const listed = asked.prompt.split("\n").filter((line) => line.startsWith("- "));
  expect(listed).toHaveLength(3);
  expect(listed[0]).toStartWith("- The flaky test is tests/net/retry.spec.ts");
  expect(listed.slice(1).every((line) => line.startsWith("- Unrelated fact number"))).toBe(true);

  config(ws.home, "mnemopi:\n  recallLimit: 3\n  injectionTokenLimit: 30\n");
  const small = await session(ws.home, ws.repo, [], "why does the retry spec fail?");
  expect(small.prompt.split("\n").filter((line) => line.startsWith("- "))).toHaveLength(1);
  config(ws.home, "mnemopi:\n  autoRecall: false\n");
  expect((await session(ws.home, ws.repo, [], "retry spec")).prompt).toBe("retry spec");
});

test("with a full block of memories the first request stays under 24 KB", async () => {
  const ws = workspace();
  const items = Array.from({ length: 12 }, (_, i) => ({ content: `Fact ${i}: ${"the service keeps its build cache and deploy notes in a place worth remembering ".repeat(2)}`.trim() }));
  await session(ws.home, ws.repo, [{ name: "retain", arguments: { items } }]);
  standin.setScript([{ text: "ok" }]);
  standin.requests.length = 0;
  expect((await runAgent(["-p", "--model", MODEL, "where is the build cache?"], { home: ws.home, cwd: ws.repo, env })).code).toBe(0);
  const first = modelRequests(standin)[0]!.body;
  expect(userTextsOf(API, first)[0]).toContain("<memories>");
  const bytes = Buffer.byteLength(JSON.stringify(first));
  expect({ bytes, underLimit: bytes < 24 * 1024 }).toEqual({ bytes, underLimit: true });
});

test("memory:// reads the newest memories and every memory; unknown paths say what exists", async () => {
  const ws = workspace();
  const empty = await session(ws.home, ws.repo, [{ name: "read", arguments: { path: "memory://root" } }]);
  expect(empty.results[0]!.text).toBe("No memories are stored for this project yet.");
  // Reading made no store.
  expect(existsSync(join(ws.home, ".omp", "agent", "memories"))).toBe(false);
  await session(ws.home, ws.repo, [{ name: "retain", arguments: { items: [{ content: "Tests run with make check" }, { content: "The API lives in server/api" }] } }]);
  const read = await session(ws.home, ws.repo, [
    { name: "read", arguments: { path: "memory://root" } },
    { name: "read", arguments: { path: "memory://root/MEMORY.md" } },
    { name: "read", arguments: { path: "memory://root/nope" } },
  ]);
  const [root, all, missing] = read.results;
  expect(root!.text).toContain("<memories>");
  expect(root!.text).toContain("- Tests run with make check (id: 1)");
  expect(all!.text).toContain("# Memory");
  expect(all!.text).toContain("The API lives in server/api (id: 2)");
  expect(missing!.isError).toBe(true);
  expect(missing!.text).toContain("There is no memory://root/nope. Readable: memory://root");
});

test("secrets in retained text never reach the memory database", async () => {
  const ws = workspace();
  const token = `ghp_${"a1B2c3D4e5".repeat(4)}`;
  const { results } = await session(ws.home, ws.repo, [
    { name: "retain", arguments: { items: [{ content: `Deploys authenticate with ${KEY} and the bot token ${token}`, context: `token ${token}` }] } },
  ]);
  expect(results[0]!.text).toBe("1 memory stored.");
  const dir = join(ws.home, ".omp", "agent", "memories", "mnemopi");
  expect(readdirSync(dir)).toContain("mnemopi.db");
  expect(filesContaining([dir], KEY)).toEqual([]);
  expect(filesContaining([dir], token)).toEqual([]);
  const recalled = await session(ws.home, ws.repo, [{ name: "recall", arguments: { query: "deploys authenticate" } }]);
  expect(recalled.results[0]!.text).toContain("Deploys authenticate with [REDACTED] and the bot token [REDACTED]");
});

test("query syntax in the model's text is plain words; oversized memories are refused whole; memory.backend off (or hindsight) offers no tools", async () => {
  const ws = workspace();
  const { results } = await session(ws.home, ws.repo, [
    { name: "retain", arguments: { items: [{ content: "Use NEAR-zero downtime deploys (blue/green)" }] } },
    { name: "recall", arguments: { query: 'NEAR( "unbalanced AND -downtime* OR: ^' } },
    { name: "recall", arguments: { query: "*** ((( )))" } },
    { name: "retain", arguments: { items: [{ content: "short and fine" }, { content: "x".repeat(4001) }] } },
    { name: "recall", arguments: { query: "short fine" } },
  ]);
  const [, syntax, noWords, tooLong, after] = results;
  expect(syntax!.isError).toBe(false);
  expect(syntax!.text).toContain("- Use NEAR-zero downtime deploys (blue/green)");
  expect(noWords!.text).toBe("No relevant memories found.");
  expect(tooLong!.isError).toBe(true);
  expect(tooLong!.text).toContain("item 2: content is 4001 characters, over the 4000 a memory may have");
  expect(after!.text).toBe("No relevant memories found.");

  config(ws.home, "memory:\n  backend: off\n");
  const off = await session(ws.home, ws.repo, [{ name: "read", arguments: { path: "memory://root" } }]);
  expect(off.results[0]!.isError).toBe(true);
  expect(off.results[0]!.text).toContain("Memory is off (memory.backend: off); memory.backend: local turns it on.");
  expect(off.tools).not.toContain("retain");
  expect(off.findable).not.toContain("retain");
  expect(off.findable).not.toContain("recall");
  expect(off.prompt).toBe("go");

  // The original's remote backend is named, not silently ignored.
  config(ws.home, "memory:\n  backend: hindsight\n");
  const remote = await session(ws.home, ws.repo, []);
  expect(remote.stderr).toContain("memory.backend hindsight needs a Hindsight server, which omp does not talk to: memory is off");
  expect(remote.tools).not.toContain("recall");
  expect(remote.findable).not.toContain("recall");
});

test("a memory store that is not a database: the session starts without memories, the tools say what is wrong, the file is left alone", async () => {
  const ws = workspace();
  const dir = join(ws.home, ".omp", "agent", "memories", "mnemopi");
  mkdirSync(dir, { recursive: true });
  const junk = "this is not sqlite ".repeat(300);
  writeFileSync(join(dir, "mnemopi.db"), junk);
  const { results, prompt } = await session(ws.home, ws.repo, [{ name: "recall", arguments: { query: "anything" } }]);
  expect(prompt).toBe("go");
  expect(results[0]!.isError).toBe(true);
  expect(results[0]!.text).toContain("The memory store ~/.omp/agent/memories/mnemopi/mnemopi.db cannot be used (");
  expect(results[0]!.text).toContain("move it aside and omp starts a new one");
  expect(readFileSync(join(dir, "mnemopi.db"), "utf8")).toBe(junk);
});
