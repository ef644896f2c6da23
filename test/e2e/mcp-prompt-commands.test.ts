// MCP server prompts as commands of the one registry, through the compiled omp and the real
// server-everything: invoked in print and rpc modes with arguments mapped to the declared ones,
// listed by `omp extensions` beside the markdown commands, and a name a markdown command already
// has stays the markdown command's (the prompt is listed as shadowed).
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { RpcProcess } from "../support/agent-rpc.ts";
import { agentTestFile, modelRequests, runAgent, userTextsOf, workspace } from "../support/agent-harness.ts";
import { everythingServer, writeUserMcp } from "../support/mcp/fixtures.ts";

const standin = await agentTestFile();
const MODEL = "anthropic/claude-sonnet-4-5";
const env = () => ({ ANTHROPIC_BASE_URL: standin.url, ANTHROPIC_API_KEY: "omptest-mcp-key" });
const sent = () => userTextsOf("anthropic-messages", modelRequests(standin)[0]!.body);

function print(prompt: string, home: string, cwd: string) {
  standin.requests.length = 0;
  standin.setScript([{ text: "ok" }]);
  return runAgent(["-p", "--model", MODEL, prompt], { home, cwd, env: env() });
}

/** server-everything as "everything", and a markdown command named like one of its prompts. */
function setUp() {
  const { home, repo } = workspace();
  writeUserMcp(home, { everything: everythingServer() });
  const commands = join(home, ".omp", "agent", "commands");
  mkdirSync(commands, { recursive: true });
  writeFileSync(join(commands, "mcp__everything__simple-prompt.md"), "---\ndescription: mine\n---\nMARKDOWN WINS\n");
  return { home, repo, markdown: join(commands, "mcp__everything__simple-prompt.md") };
}

describe("MCP prompts in the command registry", () => {
  test("print mode: words in order or name=value fill the declared arguments; a missing required one is an error listing them; a markdown command of the same name wins", async () => {
    const { home, repo } = setUp();
    // The first run has no cached list: the command waits for its server.
    const positional = await print("/mcp__everything__args-prompt Paris", home, repo);
    expect(positional.stderr).toBe("");
    expect(positional.code).toBe(0);
    expect(sent()).toEqual(["What's weather in Paris?"]);

    const named = await print('/mcp__everything__args-prompt state=TX city="San Antonio"', home, repo);
    expect(named.code).toBe(0);
    expect(sent()).toEqual(["What's weather in San Antonio, TX?"]);

    const missing = await print("/mcp__everything__args-prompt", home, repo);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("/mcp__everything__args-prompt: missing the required argument city. Its arguments: <city> [state]; give them in that order, or as name=value");
    expect(modelRequests(standin)).toHaveLength(0);

    const two = await print("/mcp__everything__completable-prompt Engineering Alice", home, repo);
    expect(two.code).toBe(0);
    expect(sent()).toEqual(["Please promote Alice to the head of the Engineering team."]);

    const shadowed = await print("/mcp__everything__simple-prompt", home, repo);
    expect(shadowed.code).toBe(0);
    expect(sent()).toEqual(["MARKDOWN WINS"]);

    const unknown = await print("/mcp__everything__nope", home, repo);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("no MCP prompt /mcp__everything__nope; the servers offer: /mcp__everything__simple-prompt, /mcp__everything__args-prompt");
  });

  test("omp extensions lists the prompts as commands with their config file; the one a markdown command has is shadowed", async () => {
    const { home, repo, markdown } = setUp();
    const json = await runAgent(["extensions", "--json"], { home, cwd: repo });
    expect(json.code).toBe(0);
    const items = JSON.parse(json.stdout).items.filter((item: any) => item.kind === "command");
    const byName = new Map<string, any>(items.map((item: any) => [`${item.name} ${item.status}`, item]));
    expect(byName.get("mcp__everything__args-prompt loaded")).toMatchObject({
      source: "user",
      path: "~/.omp/agent/mcp.json",
      description: "A prompt with two arguments, one required and one optional",
      detail: 'prompt "args-prompt" of MCP server "everything"',
    });
    expect(byName.get("mcp__everything__simple-prompt loaded")).toMatchObject({ path: markdown });
    expect(byName.get("mcp__everything__simple-prompt shadowed")).toMatchObject({ reason: "shadowed by ~/.omp/agent/commands/mcp__everything__simple-prompt.md" });

    const text = await runAgent(["extensions"], { home, cwd: repo });
    expect(text.stdout).toMatch(/Commands \(4 loaded, 1 shadowed\)/);
    expect(text.stdout).toMatch(/ \/mcp__everything__resource-prompt +user +~\/\.omp\/agent\/mcp\.json → prompt "resource-prompt" of MCP server "everything"/);
    expect(text.stdout).toMatch(/~ \/mcp__everything__simple-prompt +user +~\/\.omp\/agent\/mcp\.json → .* — shadowed by/);
  });

  test("rpc: get_available_commands offers the prompts with their arguments; a prompt /mcp__… sends the server prompt's text", async () => {
    const { home, repo } = setUp();
    standin.setScript([{ text: "sunny" }]);
    standin.requests.length = 0;
    const rpc = new RpcProcess(["--model", MODEL], { home, cwd: repo, env: env() });
    try {
      const listed = await rpc.send({ type: "get_available_commands" });
      const byName = new Map<string, any>(listed.data.commands.map((c: any) => [c.name, c]));
      expect(byName.get("mcp__everything__args-prompt")).toMatchObject({ kind: "mcp", argumentHint: "<city> [state]", location: "user" });
      expect(byName.get("mcp__everything__simple-prompt")).toMatchObject({ kind: "command", description: "mine" });
      const mark = rpc.mark;
      const prompted = await rpc.send({ type: "prompt", message: "/mcp__everything__args-prompt Oslo" });
      expect(prompted.data).toMatchObject({ agentInvoked: true, invoked: { kind: "command", name: "mcp__everything__args-prompt" } });
      await rpc.waitFrame((f) => f.type === "agent_end", mark);
      expect(sent()).toEqual(["What's weather in Oslo?"]);
      const failed = await rpc.send({ type: "prompt", message: "/mcp__everything__args-prompt" });
      expect(failed.success).toBe(false);
      expect(failed.error).toContain("missing the required argument city");
    } finally {
      expect(await rpc.close()).toBe(0);
    }
  });
});
