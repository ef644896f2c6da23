// Claude Code assets as published (test/fixtures/claude-assets, sources in its README), used by the
// compiled binary unchanged: VoltAgent's marketplace whose plugin.json lists agent files,
// anthropics/skills' marketplace whose entries each list their skill folders (17 skills, not 51),
// an agent in a sub-folder with a multi-line <example> description run through `task`, a command
// mentioning @pytest.fixture, and /commit's `!` lines under its allowed-tools.
import { describe, expect, test } from "bun:test";
import { cpSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setFolderTrust } from "../../core/trust/folder-trust.ts";
import { agentTestFile, modelRequests, providerCases, runAgent, systemPromptOf, toolResultsOf, userTextsOf, workspace } from "../support/agent-harness.ts";
import { ROOT, runOmp, tempDir } from "../support/omp.ts";

const standin = await agentTestFile();
const provider = providerCases()[0]!;
const api = provider.api;
const FIXTURES = join(ROOT, "test", "fixtures", "claude-assets");

const run = (home: string, repo: string, args: string[]) => runAgent(args, { home, cwd: repo, env: provider.env(standin.url) });

function copyFixture(name: string): string {
  const dir = join(tempDir("omp-assets-"), name);
  cpSync(join(FIXTURES, name), dir, { recursive: true });
  return dir;
}

async function listing(home: string, repo: string): Promise<any[]> {
  const result = await runOmp(["extensions", "--json"], { home, cwd: repo });
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout).items;
}

describe("marketplaces as published", () => {
  test("VoltAgent: plugin.json's agents list files; each loads as <plugin>:<agent>, nothing fails with ENOTDIR", async () => {
    const { home, repo } = workspace();
    const market = copyFixture("voltagent");
    expect((await run(home, repo, ["plugin", "marketplace", "add", market])).code).toBe(0);
    const installed = await run(home, repo, ["plugin", "install", "voltagent-core-dev@voltagent-subagents"]);
    expect(installed.code).toBe(0);
    standin.requests.length = 0;
    standin.setScript([{ text: "done" }]);
    const result = await run(home, repo, ["-p", "--model", provider.model, "go"]);
    expect(result.code).toBe(0);
    expect(result.stderr).not.toContain("ENOTDIR");
    const task = modelRequests(standin)[0]!.body.tools.find((tool: { name: string }) => tool.name === "task");
    for (const agent of ["api-designer", "backend-developer", "graphql-architect"]) expect(task.description).toContain(`- voltagent-core-dev:${agent}: `);
    const agents = (await listing(home, repo)).filter((item) => item.kind === "agent");
    expect(agents.filter((item) => item.status === "loaded").map((item) => item.name)).toEqual(expect.arrayContaining(["voltagent-core-dev:api-designer"]));
    expect(agents.filter((item) => item.status === "skipped")).toEqual([]);
  });

  test("anthropics/skills: each entry's skills list scopes its plugin; 17 skills over three plugins, no false skips", async () => {
    const { home, repo } = workspace();
    const market = copyFixture("anthropics-skills");
    expect((await run(home, repo, ["plugin", "marketplace", "add", market])).code).toBe(0);
    for (const plugin of ["document-skills", "example-skills", "claude-api"]) {
      expect((await run(home, repo, ["plugin", "install", `${plugin}@anthropic-agent-skills`])).code).toBe(0);
    }
    const skills = (await listing(home, repo)).filter((item) => item.kind === "skill");
    const loaded = skills.filter((item) => item.status === "loaded").map((item) => item.name);
    expect(loaded.length).toBe(17);
    expect(loaded).toEqual(expect.arrayContaining(["document-skills:pdf", "example-skills:skill-creator", "claude-api:claude-api"]));
    expect(skills.filter((item) => item.status !== "loaded")).toEqual([]);
  });
});

describe("agents and commands as written", () => {
  test("an agent in a sub-folder of agents/, with a multi-line <example> description, runs through task", async () => {
    const { home, repo } = workspace();
    cpSync(join(FIXTURES, "written", "agents"), join(home, ".claude", "agents"), { recursive: true });
    standin.requests.length = 0;
    standin.setScript([
      { toolCalls: [{ id: "t1", name: "task", arguments: { subagent_type: "code-reviewer", description: "review", prompt: "review src/math.sh" } }] },
      { text: "looks wrong: add subtracts" },
      { text: "the reviewer found a bug" },
    ]);
    const result = await run(home, repo, ["-p", "--model", provider.model, "review my change"]);
    expect(result.code).toBe(0);
    expect(result.stderr).not.toContain("code-reviewer.md");
    const requests = modelRequests(standin).map((r) => r.body);
    const task = requests[0]!.tools.find((tool: { name: string }) => tool.name === "task");
    expect(task.description).toContain("- code-reviewer: Use this agent when a piece of code has just been written");
    expect(task.description).toContain("<commentary> New code was written");
    expect(systemPromptOf(api, requests[1])).toContain("REVIEWER-PROMPT-MARKER");
    expect(toolResultsOf(api, requests[2])[0]!.text).toContain("looks wrong: add subtracts");
  });

  test("model: sonnet and model: claude-sonnet-4-0 run on the provider the user has a key for; a $5.0M command keeps its arguments", async () => {
    const { home, repo } = workspace();
    mkdirSync(join(home, ".claude", "agents"), { recursive: true });
    mkdirSync(join(home, ".claude", "commands"), { recursive: true });
    // As wshobson/agents and everything-claude-code write them.
    writeFileSync(join(home, ".claude", "agents", "reviewer.md"), "---\nname: reviewer\ndescription: Reviews code\nmodel: sonnet\n---\nYou review.\n");
    writeFileSync(join(home, ".claude", "agents", "dated.md"), "---\nname: dated\ndescription: Old-style model id\nmodel: claude-sonnet-4-0\n---\nYou review.\n");
    writeFileSync(join(home, ".claude", "commands", "valuation.md"), "---\ndescription: Startup valuation\nmodel: claude-sonnet-4-0\n---\nModel a $5.0M seed round for the company.\n");
    standin.requests.length = 0;
    standin.setScript([
      { toolCalls: [{ id: "t1", name: "task", arguments: { subagent_type: "reviewer", description: "review", prompt: "review it" } }] },
      { text: "reviewed" },
      { toolCalls: [{ id: "t2", name: "task", arguments: { subagent_type: "dated", description: "review", prompt: "review it" } }] },
      { text: "reviewed too" },
      { text: "both reviewed" },
    ]);
    const result = await run(home, repo, ["-p", "--model", provider.model, "review"]);
    expect(result.stderr).not.toContain("amazon-bedrock");
    expect(result.code).toBe(0);
    const requests = modelRequests(standin).map((r) => r.body);
    expect(requests.map((body) => body.model)).toEqual(["claude-sonnet-5-5", "claude-sonnet-5-5", "claude-sonnet-5-5", "claude-sonnet-4-0", "claude-sonnet-5-5"]);
    expect(toolResultsOf(api, requests[4]).map((r) => [r.text, r.isError])).toEqual([["reviewed", false], ["reviewed too", false]]);

    standin.requests.length = 0;
    standin.setScript([{ text: "valued" }]);
    const command = await run(home, repo, ["-p", "--model", provider.model, "/valuation Acme Robotics"]);
    expect(command.code).toBe(0);
    const body = modelRequests(standin)[0]!.body;
    expect(body.model).toBe("claude-sonnet-4-0");
    const text = userTextsOf(api, body).join("\n");
    expect(text).toContain("Model a $5.0M seed round");
    expect(text).toContain("Acme Robotics");
  });

  test("a command mentioning @pytest.fixture, @angular/cli and an e-mail address is sent as written", async () => {
    const { home, repo } = workspace();
    mkdirSync(join(home, ".claude", "commands"), { recursive: true });
    cpSync(join(FIXTURES, "written", "commands", "pytest-fixtures.md"), join(home, ".claude", "commands", "pytest-fixtures.md"));
    standin.requests.length = 0;
    standin.setScript([{ text: "refactored" }]);
    const result = await run(home, repo, ["-p", "--model", provider.model, "/pytest-fixtures tests/test_api.py"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("refactored\n");
    const text = userTextsOf(api, modelRequests(standin)[0]!.body).join("\n");
    expect(text).toContain("decorated with @pytest.fixture,");
    expect(text).toContain("@angular/cli version");
    expect(text).toContain("qa-team@example.com");
  });

  test("frontmatter the YAML library warns about loads without its raw warning", async () => {
    const { home, repo } = workspace();
    mkdirSync(join(home, ".claude", "commands"), { recursive: true });
    writeFileSync(join(home, ".claude", "commands", "odd.md"), "---\ndescription: odd keys\nmatrix: {[a, b]: c}\n---\nODD-BODY\n");
    standin.requests.length = 0;
    standin.setScript([{ text: "ok" }]);
    const result = await run(home, repo, ["-p", "--model", provider.model, "/odd"]);
    expect(result.code).toBe(0);
    expect(result.stderr).not.toContain("Keys with collection values");
    expect(userTextsOf(api, modelRequests(standin)[0]!.body).join("\n")).toContain("ODD-BODY");
  });

  test("/commit's ! lines run: git diff HEAD and git log are read-only, as Claude Code treats them; others stay refused", async () => {
    const { home, repo } = workspace();
    mkdirSync(join(repo, ".claude", "commands"), { recursive: true });
    cpSync(join(FIXTURES, "written", "commands", "commit.md"), join(repo, ".claude", "commands", "commit.md"));
    writeFileSync(join(repo, "README.md"), "# demo, changed\n");
    writeFileSync(join(repo, ".claude", "commands", "sneaky.md"), "---\nallowed-tools: Bash(git status:*)\n---\nState: !`git status && touch pwned`\n");
    setFolderTrust(repo, true, { OMP_AGENT_DIR: join(home, ".omp", "agent") });
    standin.requests.length = 0;
    standin.setScript([{ text: "committed" }, { text: "ok" }]);
    const result = await run(home, repo, ["-p", "--model", provider.model, "/commit"]);
    expect(result.code).toBe(0);
    expect(result.stderr).not.toContain("was not run");
    const text = userTextsOf(api, modelRequests(standin)[0]!.body).join("\n");
    expect(text).toContain("+# demo, changed");
    expect(text).toContain("Current branch: main");
    expect(text).toContain("initial");
    const sneaky = await run(home, repo, ["-p", "--model", provider.model, "/sneaky"]);
    expect(sneaky.stderr).toContain("was not run");
  });
});
