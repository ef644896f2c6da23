// omp:// (omp's documentation, built into the binary) and artifact:// (a spilled tool output of
// the session) through read, in the compiled omp.
import { expect, test } from "bun:test";
import { agentTestFile, modelRequests, runAgent, toolResultsOf, workspace } from "../support/agent-harness.ts";

const standin = await agentTestFile();
const MODEL = "anthropic/claude-sonnet-4-5";
const env = { ANTHROPIC_BASE_URL: standin.url, ANTHROPIC_API_KEY: "sk-ant-test" };

test("omp:// lists the built-in pages and serves them offline; an unknown page lists the real ones", async () => {
  const ws = workspace();
  const paths = ["omp://", "omp://web.md", "omp://settings", "omp://README.md", "omp://nope"];
  standin.setScript([{ toolCalls: paths.map((path) => ({ name: "read", arguments: { path } })) }, { text: "done" }]);
  standin.requests.length = 0;
  await runAgent(["-p", "--model", MODEL, "go"], { home: ws.home, cwd: ws.repo, env });
  const [index, web, settings, readme, missing] = toolResultsOf("anthropic-messages", modelRequests(standin)[1]!.body);
  expect(index!.text).toContain("omp://read.md — read: selectors");
  expect(web!.text).toContain("SEARXNG_URL");
  expect(settings!.text).toContain("| `web.maxBytes` | `10485760` |");
  expect(settings!.text).toContain("| `approvalMode` | `\"yolo\"` |");
  // What each does and may be, from the schema's .describe() text.
  expect(settings!.text).toContain("| `read.defaultLimit` | `2000` | whole number 1 to 100000 | Lines read returns when the model gives no limit");
  expect(readme!.text).toContain("omp");
  expect(missing!.isError).toBe(true);
  expect(missing!.text).toContain("There is no omp://nope. Pages: omp://README.md");
});

test("artifact://<id> reads bash's spilled full output, paged like a file", async () => {
  const ws = workspace();
  standin.setScript([
    { toolCalls: [{ name: "bash", arguments: { command: "seq 1 5000" } }] },
    { toolCalls: [{ name: "read", arguments: { path: "artifact://" } }, { name: "read", arguments: { path: "artifact://1", offset: 4998 } }, { name: "read", arguments: { path: "artifact://9" } }] },
    { text: "done" },
  ]);
  standin.requests.length = 0;
  await runAgent(["-p", "--model", MODEL, "go"], { home: ws.home, cwd: ws.repo, env });
  const [, list, tail, missing] = toolResultsOf("anthropic-messages", modelRequests(standin)[2]!.body);
  expect(list!.text).toContain("artifact://1 (bash)");
  expect(tail!.text).toMatch(/4998\t4998\n4999\t4999\n5000\t5000/);
  expect(missing!.isError).toBe(true);
  expect(missing!.text).toContain("There is no artifact://9 in this session. Saved: artifact://1.");
});
