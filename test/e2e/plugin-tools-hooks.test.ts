// An npm-style plugin's `omp` manifest `tools` (custom-tool modules: a factory returning tools whose
// execute takes (toolCallId, params, onUpdate, ctx, signal)) and `hooks` (modules registering event
// handlers) load through the TS extension loader in a print-mode run of the compiled binary against
// the provider stand-in, only for the features in effect (pkg[feat]).
import { expect, test } from "bun:test";
import { join } from "node:path";
import { agentTestFile, modelRequests, providerCases, runAgent, toolNamesOf, toolResultsOf, workspace } from "../support/agent-harness.ts";
import { writeTree } from "../support/plugin-fixtures.ts";

const standin = await agentTestFile();
const provider = providerCases()[0]!;

const TOOL = `
export default (pi: any) => ({
  name: "stamp",
  description: "Stamps a word",
  parameters: pi.zod.object({ word: pi.zod.string() }),
  async execute(toolCallId: string, params: { word: string }, onUpdate: unknown, ctx: { cwd: string }, signal: AbortSignal) {
    return { content: [{ type: "text", text: "stamped " + params.word + " id=" + toolCallId + " signal=" + (signal instanceof AbortSignal) + " cwd=" + (typeof ctx.cwd) }] };
  },
});
`;
const GUARD = `
export default function (pi: any) {
  pi.on("tool_call", (event: any) => {
    if (event.toolName === "bash") return { block: true, reason: "bash is blocked by the guard hook" };
    if (event.toolName === "stamp") return { input: { word: String(event.input.word).toUpperCase() } };
  });
}
`;
const AUDIT = `
export default function (pi: any) {
  pi.on("tool_result", (event: any) => ({ content: [{ type: "text", text: event.content[0].text + " AUDITED" }] }));
}
`;

test("a plugin's tool and hook modules are live for its features in effect", async () => {
  const { home, repo } = workspace();
  const plugin = writeTree(join(home, "guarded"), {
    "package.json": JSON.stringify({
      name: "guarded",
      version: "1.0.0",
      omp: { tools: ["./tools/stamp.ts"], features: { guard: { hooks: ["./hooks/guard.ts"] }, audit: { hooks: "./hooks/audit.ts" } } },
    }),
    "tools/stamp.ts": TOOL,
    "hooks/guard.ts": GUARD,
    "hooks/audit.ts": AUDIT,
  });
  const run = (args: string[]) => runAgent(args, { home, cwd: repo, env: provider.env(standin.url) });
  const install = await run(["plugin", "install", `${plugin}[guard]`]);
  expect(install.code).toBe(0);
  expect(install.stdout).toContain("tools/stamp.ts");
  expect(install.stdout).toContain("hooks/guard.ts");

  const session = async () => {
    standin.requests.length = 0;
    standin.setScript([
      { toolCalls: [{ id: "c1", name: "stamp", arguments: { word: "hello" } }, { id: "c2", name: "bash", arguments: { command: "echo ran" } }] },
      { text: "done" },
    ]);
    const result = await run(["-p", "--model", provider.model, "go"]);
    expect(result.code).toBe(0);
    const requests = modelRequests(standin);
    return { tools: toolNamesOf(provider.api, requests[0]!.body), results: toolResultsOf(provider.api, requests[1]!.body) };
  };

  const guarded = await session();
  expect(guarded.tools).toContain("stamp");
  expect(guarded.results[0]!.text).toBe("stamped HELLO id=c1 signal=true cwd=string");
  expect(guarded.results[1]!.text).toContain("bash is blocked by the guard hook");
  expect(guarded.results[1]!.text).not.toContain("ran");

  // Another feature selection: the guard's handlers are gone, the audit's are in.
  expect((await run(["plugin", "features", "guarded", "--set", "audit"])).code).toBe(0);
  const audited = await session();
  expect(audited.results[0]!.text).toBe("stamped hello id=c1 signal=true cwd=string AUDITED");
  expect(audited.results[1]!.text).toBe("ran AUDITED");

  // A hook module that fails to load is rolled back like a broken extension.
  writeTree(plugin, { "hooks/audit.ts": "export default 42;\n" });
  const broken = await run(["plugin", "install", `${plugin}[audit]`]);
  expect(broken.code).toBe(1);
  expect(broken.stderr).toContain("audit.ts does not export a function");
  expect(broken.stderr).toContain("The previous version is still installed.");

  expect((await run(["plugin", "uninstall", "guarded"])).code).toBe(0);
  const gone = await session();
  expect(gone.tools).not.toContain("stamp");
});
