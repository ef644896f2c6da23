// An installed plugin's components working in a print-mode run of the compiled binary against the
// provider stand-in: a marketplace plugin's hooks.json (run with CLAUDE_PLUGIN_ROOT) and agents
// (offered by the task tool as <plugin>:<agent>), skills and commands (<plugin>:<name>), its
// .mcp.json server (started through ${CLAUDE_PLUGIN_ROOT}, its tools sent to the model), an
// npm-style plugin's extension (its tool sent to the model); disabled or uninstalled, each
// contributes nothing. Project installs in an untrusted folder give no code.
import { expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { agentTestFile, modelRequests, providerCases, runAgent, systemPromptOf, toolNamesOf, userTextsOf, workspace } from "../support/agent-harness.ts";
import { EVERYTHING } from "../support/mcp/fixtures.ts";
import { writeTree } from "../support/plugin-fixtures.ts";

const standin = await agentTestFile();
const provider = providerCases()[0]!;

const EXTENSION = `
export default function (api: any) {
  api.registerTool({ name: "plugin_tool", description: "A tool from an installed plugin", parameters: { type: "object", properties: {} }, execute: () => "from the plugin" });
}
`;

async function run(home: string, repo: string, args: string[]) {
  return runAgent(args, { home, cwd: repo, env: provider.env(standin.url) });
}

async function ask(home: string, repo: string) {
  standin.requests.length = 0;
  standin.setScript([{ toolCalls: [{ id: "c1", name: "bash", arguments: { command: "echo hi" } }] }, { text: "done" }]);
  const result = await run(home, repo, ["-p", "--model", provider.model, "go"]);
  expect(result.code).toBe(0);
  const first = modelRequests(standin)[0]!.body;
  const task = first.tools.find((tool: { name: string }) => tool.name === "task");
  // Past a few, MCP tools are deferred: search_tool_bm25's description names their server.
  const search = first.tools.find((tool: { name: string }) => tool.name === "search_tool_bm25");
  return { result, tools: toolNamesOf(provider.api, first), deferred: String(search?.description ?? ""), taskDescription: String(task?.description ?? ""), system: systemPromptOf(provider.api, first) };
}

test("hooks, agents and extensions of installed plugins are live; disabled or uninstalled they are gone", async () => {
  const { home, repo } = workspace();
  const marker = join(home, "hook-ran");
  writeTree(join(home, "market"), {
    ".claude-plugin/marketplace.json": JSON.stringify({ name: "team", owner: { name: "t" }, plugins: [{ name: "kit", source: "./kit" }] }),
    "kit/hooks/hooks.json": JSON.stringify({ hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "sh ${CLAUDE_PLUGIN_ROOT}/guard.sh" }] }] } }),
    "kit/guard.sh": `echo "$CLAUDE_PLUGIN_ROOT" >> ${marker}\n`,
    "kit/agents/checker.md": "---\nname: checker\ndescription: Checks the plugin's things\n---\nYou check.\n",
    // server-everything started through a file in the plugin, found by ${CLAUDE_PLUGIN_ROOT}.
    "kit/server.mjs": `process.argv.splice(2, 0, "stdio");\nawait import(${JSON.stringify(EVERYTHING)});\n`,
    "kit/.mcp.json": JSON.stringify({ mcpServers: { everything: { command: "node", args: ["${CLAUDE_PLUGIN_ROOT}/server.mjs"] } } }),
    "kit/commands/review.md": "---\ndescription: Review a file\n---\nPlease review $ARGUMENTS carefully.\n",
    "kit/.claude-plugin/plugin.json": JSON.stringify({ name: "kit", skills: ["./more-skills"] }),
    "kit/skills/lint/SKILL.md": "---\nname: lint\ndescription: Lints code the team's way\n---\nLINT-BODY\n",
    "kit/more-skills/style/SKILL.md": "---\nname: style\ndescription: The team's style rules\n---\nSTYLE-BODY\n",
  });
  writeTree(join(home, "tooling"), { "package.json": JSON.stringify({ name: "tooling", version: "1.0.0", omp: { extensions: ["./main.ts"] } }), "main.ts": EXTENSION });
  expect((await run(home, repo, ["plugin", "marketplace", "add", join(home, "market")])).code).toBe(0);
  expect((await run(home, repo, ["plugin", "install", "kit@team"])).code).toBe(0);
  expect((await run(home, repo, ["plugin", "install", join(home, "tooling")])).code).toBe(0);

  const live = await ask(home, repo);
  const root = join(home, ".omp", "plugins", "cache", "plugins", "team___kit___0.0.0");
  expect(readFileSync(marker, "utf8")).toBe(`${root}\n`);
  expect(live.taskDescription).toContain("- kit:checker: Checks the plugin's things");
  expect(live.tools).toContain("plugin_tool");
  expect(live.deferred).toMatch(/MCP server everything \(\d+ tools\)/);
  // `omp mcp list` shows the plugin's server as a run starts it (issue 27).
  const mcpList = await run(home, repo, ["mcp", "list"]);
  expect(mcpList.stdout).toMatch(/^everything: node .*server\.mjs - ✓ connected/m);
  expect(live.system).toContain("- kit:lint: Lints code the team's way");
  expect(live.system).toContain("- kit:style: The team's style rules");
  standin.requests.length = 0;
  standin.setScript([{ text: "reviewed" }]);
  const command = await run(home, repo, ["-p", "--model", provider.model, "/kit:review", "src/a.ts"]);
  expect(command.stdout).toBe("reviewed\n");
  expect(userTextsOf(provider.api, modelRequests(standin)[0]!.body).join("\n")).toContain("Please review src/a.ts carefully.");

  expect((await run(home, repo, ["plugin", "disable", "kit@team"])).code).toBe(0);
  expect((await run(home, repo, ["plugin", "uninstall", "tooling"])).code).toBe(0);
  const off = await ask(home, repo);
  expect(readFileSync(marker, "utf8")).toBe(`${root}\n`);
  expect(off.taskDescription).not.toContain("kit:checker");
  expect(off.tools).not.toContain("plugin_tool");
  expect(off.tools.filter((name) => name.startsWith("mcp__"))).toEqual([]);
  expect(off.system).not.toContain("kit:lint");
  standin.requests.length = 0;
  standin.setScript([{ text: "plain" }]);
  await run(home, repo, ["-p", "--model", provider.model, "/kit:review", "src/a.ts"]);
  expect(userTextsOf(provider.api, modelRequests(standin)[0]!.body)).toEqual(["/kit:review src/a.ts"]);
});

test("a project-scope install in an untrusted folder gives no hooks, and the notice says so", async () => {
  const { home, repo } = workspace();
  const marker = join(repo, "hook-ran");
  writeTree(join(home, "market"), {
    ".claude-plugin/marketplace.json": JSON.stringify({ name: "team", owner: { name: "t" }, plugins: [{ name: "kit", source: "./kit" }] }),
    "kit/hooks/hooks.json": JSON.stringify({ hooks: { PreToolUse: [{ hooks: [{ type: "command", command: `touch ${marker}` }] }] } }),
  });
  expect((await run(home, repo, ["plugin", "marketplace", "add", join(home, "market")])).code).toBe(0);
  expect((await run(home, repo, ["plugin", "install", "kit@team", "--scope", "project"])).code).toBe(0);
  const untrusted = await ask(home, repo);
  expect(existsSync(marker)).toBe(false);
  expect(untrusted.result.stderr).toContain("hooks of project plugin kit@team");
  expect((await run(home, repo, ["trust", repo])).code).toBe(0);
  await ask(home, repo);
  expect(existsSync(marker)).toBe(true);
});
