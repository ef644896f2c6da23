// TypeScript/JavaScript extensions loaded by the compiled binary at run time: a tool the model
// calls (zod and JSON Schema parameters), tool_call/tool_result handlers, session events, a
// command, -e paths, broken extensions reported while the run goes on, and project extensions
// that wait for the folder to be trusted.
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setFolderTrust } from "../../core/trust/folder-trust.ts";
import { agentTestFile, modelRequests, providerCases, runAgent, toolNamesOf, toolResultsOf, userTextsOf, workspace } from "../support/agent-harness.ts";

const standin = await agentTestFile();
const provider = providerCases()[0]!;
const api = provider.api;

const userExtensions = (home: string) => join(home, ".omp", "agent", "extensions");

function write(path: string, text: string): string {
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, text);
  return path;
}

const GREETER = (log: string) => `
import { appendFileSync } from "node:fs";
interface Api { zod: { z: any }; registerTool(t: unknown): void; registerCommand(n: string, c: unknown): void; on(e: string, h: Function): void }
export default function greeter(api: Api) {
  const { z } = api.zod;
  api.registerTool({
    name: "greet",
    description: "Greets someone by name",
    parameters: z.object({ name: z.string().describe("who") }),
    async execute(id: string, params: { name: string }, _signal: AbortSignal, _onUpdate: unknown, ctx: { cwd: string }) {
      return { content: [{ type: "text", text: "Hello, " + params.name + " (" + id + ")" }], details: { cwd: ctx.cwd } };
    },
  });
  api.registerTool({
    name: "add",
    description: "Adds two numbers",
    parameters: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] },
    execute: (_id: string, p: { a: number; b: number }) => String(p.a + p.b),
  });
  api.on("tool_call", (event: { toolName: string; input: { command?: string } }) => {
    if (event.toolName === "bash" && event.input.command?.includes("rm ")) return { block: true, reason: "the greeter forbids rm" };
    if (event.toolName === "write") return { input: { ...event.input, path: "redirected.txt" } };
  });
  api.on("tool_result", (event: { toolName: string; content: { type: string; text: string }[] }) => {
    if (event.toolName === "read") return { content: [...event.content, { type: "text", text: "[checked by greeter]" }] };
  });
  api.on("session_start", (event: { reason: string }) => appendFileSync(${JSON.stringify(log)}, "start:" + event.reason + "\\n"));
  api.on("session_end", () => appendFileSync(${JSON.stringify(log)}, "end\\n"));
  api.registerCommand("greet-all", { description: "Greets everyone", handler: (args: string) => "Please greet " + args });
}
`;

async function run(home: string, repo: string, args: string[], prompt = "go") {
  standin.requests.length = 0;
  const result = await runAgent(["-p", "--model", provider.model, ...args, prompt], { home, cwd: repo, env: provider.env(standin.url) });
  return { ...result, bodies: modelRequests(standin).map((r) => r.body) };
}

describe("extensions", () => {
  test("the model calls an extension's tools; its handlers block, change results and see the session start and end", async () => {
    const { home, repo } = workspace();
    const log = join(home, "events.log");
    write(join(userExtensions(home), "greeter.ts"), GREETER(log));
    standin.setScript([
      { toolCalls: [{ id: "g1", name: "greet", arguments: { name: "Ada" } }, { id: "a1", name: "add", arguments: { a: 2, b: 40 } }] },
      { toolCalls: [{ id: "b1", name: "bash", arguments: { command: "rm README.md" } }, { id: "r1", name: "read", arguments: { path: "README.md" } }] },
      { toolCalls: [{ id: "w1", name: "write", arguments: { path: "asked.txt", content: "x\n" } }, { id: "a2", name: "add", arguments: { a: "two" } }] },
      { text: "done" },
    ]);
    const result = await run(home, repo, []);
    expect(result.stderr).not.toContain("failed to load");
    expect(result.code).toBe(0);
    const [first, second, third, fourth] = result.bodies;
    expect(toolNamesOf(api, first)).toContain("greet");
    const greet = first.tools.find((tool: any) => tool.name === "greet");
    expect(greet.input_schema.properties.name).toEqual({ type: "string", description: "who" });
    expect(first.tools.find((tool: any) => tool.name === "add").input_schema.required).toEqual(["a", "b"]);
    expect(toolResultsOf(api, second).map((r) => r.text)).toEqual(["Hello, Ada (g1)", "42"]);
    const [blocked, read] = toolResultsOf(api, third).slice(2);
    expect(blocked!.text).toBe("the greeter forbids rm");
    expect(blocked!.isError).toBe(true);
    expect(existsSync(join(repo, "README.md"))).toBe(true);
    expect(read!.text).toContain("# demo");
    expect(read!.text).toContain("[checked by greeter]");
    // A JSON Schema tool's input is validated like any other.
    expect(toolResultsOf(api, fourth).at(-1)!.isError).toBe(true);
    expect(readFileSync(log, "utf8")).toBe("start:startup\nend\n");
    // tool_call rewrote the write's input.
    expect(existsSync(join(repo, "asked.txt"))).toBe(false);
    expect(readFileSync(join(repo, "redirected.txt"), "utf8")).toBe("x\n");
  });

  test("a command registered by an extension turns the prompt into its handler's text", async () => {
    const { home, repo } = workspace();
    write(join(userExtensions(home), "greeter", "index.ts"), GREETER(join(home, "events.log")));
    standin.setScript([{ text: "hi all" }]);
    const result = await run(home, repo, [], "/greet-all the team");
    expect(result.code).toBe(0);
    expect(userTextsOf(api, result.bodies[0])).toEqual(["Please greet the team"]);
  });

  test("broken extensions are reported with their paths and the run goes on with the good ones", async () => {
    const { home, repo } = workspace();
    write(join(userExtensions(home), "a-throws.ts"), 'export default function () { throw new Error("kaboom at load"); }');
    write(join(userExtensions(home), "b-syntax.ts"), "export default function ( {");
    write(join(userExtensions(home), "c-no-default.js"), "export const x = 1;");
    write(join(userExtensions(home), "d-dup.js"), 'export default (api) => api.registerTool({ name: "read", description: "x", parameters: { type: "object" }, execute: () => "x" });');
    write(join(userExtensions(home), "e-good.js"), 'export default (api) => api.registerTool({ name: "ping", description: "pong", parameters: { type: "object", properties: {} }, execute: () => "pong" });');
    standin.setScript([{ toolCalls: [{ id: "p1", name: "ping", arguments: {} }] }, { text: "ok" }]);
    const result = await run(home, repo, []);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain("extension ~/.omp/agent/extensions/a-throws.ts failed to load: kaboom at load");
    expect(result.stderr).toContain("extension ~/.omp/agent/extensions/b-syntax.ts failed to load");
    expect(result.stderr).toContain("extension ~/.omp/agent/extensions/c-no-default.js failed to load: its default export is not a function");
    expect(result.stderr).toContain("d-dup.js: a tool named read already exists");
    expect(toolResultsOf(api, result.bodies[1])[0]!.text).toBe("pong");
  });

  test("project extensions wait for trust; -e loads a given module", async () => {
    const { home, repo } = workspace();
    write(join(repo, ".omp", "extensions", "proj.js"), 'export default (api) => api.registerTool({ name: "proj_tool", description: "p", parameters: { type: "object" }, execute: () => "p" });');
    const extra = write(join(home, "elsewhere", "extra.ts"), 'export default (api: any) => api.registerTool({ name: "extra_tool", description: "e", parameters: { type: "object" }, execute: () => "e" });');
    standin.setScript([{ text: "ok" }]);
    const untrusted = await run(home, repo, ["-e", extra]);
    expect(untrusted.code).toBe(0);
    expect(untrusted.stderr).toContain("these were skipped: extensions in .omp/extensions");
    expect(toolNamesOf(api, untrusted.bodies[0])).toContain("extra_tool");
    expect(toolNamesOf(api, untrusted.bodies[0])).not.toContain("proj_tool");

    setFolderTrust(repo, true, { OMP_AGENT_DIR: join(home, ".omp", "agent") });
    standin.setScript([{ text: "ok" }]);
    const trusted = await run(home, repo, []);
    expect(trusted.stderr).not.toContain("not trusted");
    expect(toolNamesOf(api, trusted.bodies[0])).toContain("proj_tool");
  });
});
