// Plugins installed by Claude Code, read from a fixture ~/.claude in a temp HOME with the compiled
// binary: installed_plugins.json (version 2 with user and project records, version 1, no version),
// known_marketplaces.json, enabledPlugins in the user's and the project's settings. Their hooks,
// agents, MCP servers (from files and inline in plugin.json), skills and commands work in a print-mode run against the provider stand-in;
// `omp plugin list` shows where they come from; `omp plugin disable` turns one off in omp only, and
// ~/.claude is never written.
import { expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { agentTestFile, modelRequests, providerCases, runAgent, systemPromptOf, toolNamesOf, userTextsOf, workspace } from "../support/agent-harness.ts";
import { EVERYTHING } from "../support/mcp/fixtures.ts";
import { writeTree } from "../support/plugin-fixtures.ts";

const standin = await agentTestFile();
const provider = providerCases()[0]!;
const at = "2025-11-01T10:00:00.000Z";

const run = (home: string, repo: string, args: string[]) => runAgent(args, { home, cwd: repo, env: provider.env(standin.url) });

/** One print-mode run; with `tool`, the model calls bash once, which PreToolUse hooks see. */
async function ask(home: string, repo: string, tool = true) {
  standin.requests.length = 0;
  standin.setScript(tool ? [{ toolCalls: [{ id: "c1", name: "bash", arguments: { command: "echo hi" } }] }, { text: "done" }] : [{ text: "done" }]);
  const result = await run(home, repo, ["-p", "--model", provider.model, "go"]);
  expect(result.code).toBe(0);
  const first = modelRequests(standin)[0]!.body;
  const task = first.tools.find((tool: { name: string }) => tool.name === "task");
  // Past a few, MCP tools are deferred: search_tool_bm25's description names their server.
  const search = first.tools.find((tool: { name: string }) => tool.name === "search_tool_bm25");
  return { result, tools: toolNamesOf(provider.api, first), deferred: String(search?.description ?? ""), taskDescription: String(task?.description ?? ""), system: systemPromptOf(provider.api, first) };
}

/** Every file under `dir` with its bytes and mtime, to prove nothing there changed. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (path: string) => {
    for (const name of readdirSync(path)) {
      const full = join(path, name);
      if (statSync(full).isDirectory()) walk(full);
      else out[full] = `${statSync(full).mtimeMs}:${readFileSync(full, "utf8")}`;
    }
  };
  walk(dir);
  return out;
}

test("Claude Code's installs are live in omp, listed with their source, switched off in omp only, ~/.claude untouched", async () => {
  const { home, repo } = workspace();
  const claude = join(home, ".claude", "plugins");
  const cache = join(claude, "cache", "cc-market");
  const marker = join(home, "hook-ran");
  const projectMarker = join(home, "project-hook-ran");
  const inlineMarker = join(home, "inline-hook-ran");
  writeTree(claude, {
    "known_marketplaces.json": JSON.stringify({
      "cc-market": { source: { source: "github", repo: "acme/cc-market" }, installLocation: join(claude, "marketplaces", "cc-market"), lastUpdated: at },
    }),
    "installed_plugins.json": JSON.stringify({
      version: 2,
      plugins: {
        "kit@cc-market": [{ scope: "user", installPath: join(cache, "kit", "1.0.0"), version: "1.0.0", installedAt: at, lastUpdated: at, gitCommitSha: "0123456789abcdef" }],
        // Synced from another machine: the path names another home.
        "moved@cc-market": [{ scope: "user", installPath: "/root/.claude/plugins/cache/cc-market/moved/2.0.0", version: "2.0.0" }],
        // The cache folder Claude Code left empty: found in the marketplace's clone.
        "fallback@cc-market": [{ scope: "user", installPath: join(cache, "fallback", "0.1.0") }],
        "off@cc-market": [{ scope: "user", installPath: join(cache, "off", "1.0.0"), version: "1.0.0" }],
        "proj@cc-market": [
          { scope: "project", projectPath: "/some/other/project", installPath: "/nowhere", version: "0.0.1" },
          { scope: "project", projectPath: repo, installPath: join(cache, "proj", "3.0.0"), version: "3.0.0" },
        ],
        "elsewhere@cc-market": [{ scope: "local", projectPath: "/some/other/project", installPath: join(cache, "kit", "1.0.0"), version: "1.0.0" }],
        "gone@cc-market": [{ scope: "user", installPath: "/nowhere/gone", version: "9.0.0" }],
        "Not A Plugin": [{ scope: "user", installPath: "/x" }],
      },
    }),
    "cache/cc-market/kit/1.0.0/.claude-plugin/plugin.json": JSON.stringify({ name: "kit", version: "1.0.0" }),
    "cache/cc-market/kit/1.0.0/hooks/hooks.json": JSON.stringify({ hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "sh ${CLAUDE_PLUGIN_ROOT}/guard.sh" }] }] } }),
    "cache/cc-market/kit/1.0.0/guard.sh": `echo "$CLAUDE_PLUGIN_ROOT" >> ${marker}\n`,
    "cache/cc-market/kit/1.0.0/agents/checker.md": "---\nname: checker\ndescription: Checks things the Claude way\n---\nYou check.\n",
    "cache/cc-market/kit/1.0.0/server.mjs": `process.argv.splice(2, 0, "stdio");\nawait import(${JSON.stringify(EVERYTHING)});\n`,
    "cache/cc-market/kit/1.0.0/.mcp.json": JSON.stringify({ mcpServers: { everything: { command: "node", args: ["${CLAUDE_PLUGIN_ROOT}/server.mjs"] } } }),
    "cache/cc-market/kit/1.0.0/commands/review.md": "---\ndescription: Review a file\n---\nPlease review $ARGUMENTS the Claude way.\n",
    "cache/cc-market/kit/1.0.0/skills/lint/SKILL.md": "---\nname: lint\ndescription: Lints like Claude Code\n---\nLINT\n",
    // hooks and an MCP server given inline in plugin.json, read in place.
    "cache/cc-market/moved/2.0.0/.claude-plugin/plugin.json": JSON.stringify({
      name: "moved",
      hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: `echo "$CLAUDE_PLUGIN_ROOT" >> ${inlineMarker}` }] }] },
      mcpServers: { second: { command: "node", args: ["${CLAUDE_PLUGIN_ROOT}/server.mjs"] } },
    }),
    "cache/cc-market/moved/2.0.0/server.mjs": `process.argv.splice(2, 0, "stdio");\nawait import(${JSON.stringify(EVERYTHING)});\n`,
    "cache/cc-market/moved/2.0.0/skills/moved-skill/SKILL.md": "---\nname: moved-skill\ndescription: Came with a synced file\n---\nM\n",
    "cache/cc-market/off/1.0.0/skills/off-skill/SKILL.md": "---\nname: off-skill\ndescription: Switched off in Claude Code\n---\nO\n",
    "cache/cc-market/proj/3.0.0/skills/proj-skill/SKILL.md": "---\nname: proj-skill\ndescription: For this project\n---\nP\n",
    "cache/cc-market/proj/3.0.0/hooks/hooks.json": JSON.stringify({ hooks: { PreToolUse: [{ hooks: [{ type: "command", command: `touch ${projectMarker}` }] }] } }),
    "marketplaces/cc-market/.claude-plugin/marketplace.json": JSON.stringify({ name: "cc-market", owner: { name: "Acme" }, metadata: { pluginRoot: "./plugins" }, plugins: [{ name: "fallback", source: "./fallback" }] }),
    "marketplaces/cc-market/plugins/fallback/skills/fb/SKILL.md": "---\nname: fb\ndescription: Found in the marketplace clone\n---\nF\n",
  });
  mkdirSync(join(cache, "fallback", "0.1.0"), { recursive: true });
  writeTree(join(home, ".claude"), { "settings.json": JSON.stringify({ $schema: "https://json.schemastore.org/claude-code-settings.json", enabledPlugins: { "kit@cc-market": true, "off@cc-market": false } }) });
  writeTree(repo, { ".claude/settings.json": JSON.stringify({ enabledPlugins: { "proj@cc-market": true } }) });
  const before = snapshot(join(home, ".claude"));

  const listed = JSON.parse((await run(home, repo, ["plugin", "list", "--json"])).stdout);
  const row = (id: string) => listed.find((plugin: { id: string }) => plugin.id === id);
  expect(listed.map((plugin: { id: string }) => plugin.id).sort()).toEqual(["fallback@cc-market", "gone@cc-market", "kit@cc-market", "moved@cc-market", "off@cc-market", "proj@cc-market"]);
  expect(row("kit@cc-market")).toMatchObject({ kind: "claude", scope: "user", version: "1.0.0", enabled: true, source: "claude-code (acme/cc-market)", path: join(cache, "kit", "1.0.0") });
  expect(row("moved@cc-market")).toMatchObject({ enabled: true, path: join(cache, "moved", "2.0.0") });
  expect(row("fallback@cc-market")).toMatchObject({ enabled: true, version: "unknown", path: join(claude, "marketplaces", "cc-market", "plugins", "fallback") });
  expect(row("off@cc-market")).toMatchObject({ enabled: false, note: "disabled in Claude Code's user settings" });
  expect(row("proj@cc-market")).toMatchObject({ enabled: true, scope: "project", version: "3.0.0" });
  expect(row("gone@cc-market")).toMatchObject({ enabled: false, note: "its folder was not found (/nowhere/gone)" });
  const text = (await run(home, repo, ["plugin", "list"])).stdout;
  expect(text).toContain("enabled   kit@cc-market  1.0.0  claude-code (acme/cc-market) user\n");
  expect(text).toContain("disabled  off@cc-market  1.0.0  claude-code (acme/cc-market) user — disabled in Claude Code's user settings\n");

  const live = await ask(home, repo);
  expect(readFileSync(marker, "utf8")).toBe(`${join(cache, "kit", "1.0.0")}\n`);
  expect(live.taskDescription).toContain("- kit:checker: Checks things the Claude way");
  expect(live.deferred).toMatch(/MCP server everything \(\d+ tools\)/);
  expect(live.deferred).toMatch(/MCP server second \(\d+ tools\)/);
  expect(readFileSync(inlineMarker, "utf8")).toBe(`${join(cache, "moved", "2.0.0")}\n`);
  for (const skill of ["kit:lint", "moved:moved-skill", "fallback:fb", "proj:proj-skill"]) expect(live.system).toContain(`- ${skill}:`);
  expect(live.system).not.toContain("off-skill");
  // Enabled by the project's settings in a folder not trusted: its text, but not its hooks.
  expect(existsSync(projectMarker)).toBe(false);
  expect(live.result.stderr).toContain("hooks of project plugin proj@cc-market");
  standin.requests.length = 0;
  standin.setScript([{ text: "reviewed" }]);
  expect((await run(home, repo, ["-p", "--model", provider.model, "/kit:review", "a.ts"])).stdout).toBe("reviewed\n");
  expect(userTextsOf(provider.api, modelRequests(standin)[0]!.body).join("\n")).toContain("Please review a.ts the Claude way.");

  const uninstall = await run(home, repo, ["plugin", "uninstall", "kit@cc-market"]);
  expect(uninstall.code).toBe(1);
  expect(uninstall.stderr).toContain("kit@cc-market was installed by Claude Code, and omp never changes ~/.claude: remove it with `claude plugin uninstall kit@cc-market`");
  const disable = await run(home, repo, ["plugin", "disable", "kit@cc-market"]);
  expect(disable.stdout).toBe("Disabled kit@cc-market (installed by Claude Code; switched in omp only); it contributes nothing from the next session.\n");
  expect(JSON.parse(readFileSync(join(home, ".omp", "plugins", "claude_plugins.json"), "utf8"))).toEqual({ version: 1, disabled: ["kit@cc-market"] });
  const off = await ask(home, repo);
  expect(readFileSync(marker, "utf8")).toBe(`${join(cache, "kit", "1.0.0")}\n`);
  expect(off.tools.filter((name) => name.startsWith("mcp__everything__"))).toEqual([]);
  expect(off.deferred).not.toContain("MCP server everything");
  expect(off.deferred).toMatch(/MCP server second \(\d+ tools\)/);
  expect(off.system).not.toContain("kit:lint");
  expect(off.system).toContain("- fallback:fb:");
  expect(JSON.parse((await run(home, repo, ["plugin", "list", "--json"])).stdout).find((plugin: { id: string }) => plugin.id === "kit@cc-market").note).toContain("disabled in omp");
  expect((await run(home, repo, ["plugin", "enable", "kit@cc-market"])).code).toBe(0);
  const back = await ask(home, repo);
  expect(back.system).toContain("- kit:lint:");
  expect(back.deferred).toMatch(/MCP server everything \(\d+ tools\)/);
  expect(readFileSync(marker, "utf8")).toBe(`${join(cache, "kit", "1.0.0")}\n`.repeat(2));

  // Trusting the folder lets the project-enabled plugin's hooks run.
  expect((await run(home, repo, ["trust", repo])).code).toBe(0);
  await ask(home, repo);
  expect(existsSync(projectMarker)).toBe(true);
  expect(snapshot(join(home, ".claude"))).toEqual(before);
}, 240_000);

test("older and sloppy files: version 1 records, no version at all, enabledPlugins as a list, broken records skipped", async () => {
  const { home, repo } = workspace();
  const claude = join(home, ".claude", "plugins");
  writeTree(claude, {
    "installed_plugins.json": JSON.stringify({
      version: 1,
      plugins: {
        "legacy@old-market": { version: "0.5.0", installedAt: at, lastUpdated: at, installPath: "~/.claude/plugins/cache/old-market/legacy", isLocal: true },
        "broken@old-market": "not a record",
      },
    }),
    "cache/old-market/legacy/commands/hello.md": "Hello from a version 1 install\n",
    "cache/old-market/relative/skills/rel/SKILL.md": "---\nname: rel\ndescription: A relative install path\n---\nR\n",
  });
  const list = async () => JSON.parse((await run(home, repo, ["plugin", "list", "--json"])).stdout).map((plugin: { id: string; enabled: boolean; version: string; kind: string }) => `${plugin.id} ${plugin.version} ${plugin.enabled} ${plugin.kind}`);
  expect(await list()).toEqual(["legacy@old-market 0.5.0 true claude"]);
  standin.requests.length = 0;
  standin.setScript([{ text: "hi" }]);
  await run(home, repo, ["-p", "--model", provider.model, "/legacy:hello"]);
  expect(userTextsOf(provider.api, modelRequests(standin)[0]!.body).join("\n")).toContain("Hello from a version 1 install");

  // No version key and no plugins wrapper; a relative installPath; enabledPlugins as a list of ids.
  writeTree(claude, { "installed_plugins.json": JSON.stringify({ "relative@old-market": [{ installPath: "cache/old-market/relative", version: "1.1.0" }], "legacy@old-market": [{ scope: "user", installPath: join(claude, "cache", "old-market", "legacy") }] }) });
  writeTree(join(home, ".claude"), { "settings.json": JSON.stringify({ enabledPlugins: ["relative@old-market"] }) });
  expect((await list()).sort()).toEqual(["legacy@old-market unknown true claude", "relative@old-market 1.1.0 true claude"]);
  expect((await ask(home, repo, false)).system).toContain("- relative:rel: A relative install path");
});
