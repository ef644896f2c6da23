// Claude Code marketplaces with the compiled binary: catalogs as real git repositories (file:// and
// a git daemon on loopback standing in for GitHub) and folders, every plugin source kind of
// marketplace.json (relative incl. "./", github, url with sha pin, git-subdir, npm, strict:false),
// the odd shapes real catalogs have, and the install/enable/disable/update/uninstall cycle in both
// scopes.
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, readdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { runOmp, tempDir } from "../support/omp.ts";
import { commit, startGitDaemon, startRegistry, writeTree } from "../support/plugin-fixtures.ts";

const PLUGIN = {
  "commands/review.md": "---\ndescription: review the diff\n---\nReview $ARGUMENTS\n",
  "skills/lint/SKILL.md": "---\nname: lint\ndescription: lint things\n---\nLint.\n",
  "agents/checker.md": "---\nname: checker\ndescription: checks\n---\nCheck.\n",
  "hooks/hooks.json": JSON.stringify({ hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "${CLAUDE_PLUGIN_ROOT}/guard.sh" }] }] } }),
  ".mcp.json": JSON.stringify({ mcpServers: { notes: { command: "node", args: ["server.js"] } } }),
};

const gitBase = tempDir("omp-git-");
const daemon = await startGitDaemon(gitBase);
const registry = await startRegistry([{ name: "@team/npm-plugin", version: "2.1.0", files: { "commands/hello.md": "Hello from npm\n" } }]);
afterAll(() => {
  daemon.close();
  registry.close();
});

function setup() {
  const home = tempDir("omp-home-");
  const work = tempDir("omp-work-");
  const omp = (args: string[], cwd = work, env: Record<string, string> = {}) =>
    runOmp(["plugin", ...args], { home, cwd, env: { OMP_GITHUB_URL: daemon.url, npm_config_registry: registry.url, ...env } });
  return { home, work, omp };
}

const installed = (home: string) => JSON.parse(readFileSync(join(home, ".omp", "plugins", "installed_plugins.json"), "utf8"));

describe("marketplace sources", () => {
  test("a folder: relative sources after metadata.pluginRoot, './' as the root itself, odd entries listed but kept out", async () => {
    const { home, work, omp } = setup();
    const market = writeTree(join(work, "market"), {
      ".claude-plugin/marketplace.json": JSON.stringify({
        $schema: "https://anthropic.com/claude-code/marketplace.schema.json",
        name: "team-tools",
        version: "3",
        renames: { old: "new" },
        owner: { name: "Team" },
        metadata: { pluginRoot: "./plugins", description: "ours" },
        plugins: [
          { name: "review", source: "./review", description: "review kit", version: "1.2.0", tags: ["x"], unknownKey: 1 },
          { name: "whole", source: "./" },
          { name: "Bad_Name", source: "./review" },
          { name: "svn-one", source: { source: "svn", url: "svn://x" } },
        ],
      }),
      ...Object.fromEntries(Object.entries(PLUGIN).map(([path, text]) => [`plugins/review/${path}`, text])),
      "plugins/whole/.keep": "",
    });
    const added = await omp(["marketplace", "add", market]);
    expect(added.stderr).toContain("Bad_Name left out: invalid plugin name");
    expect(added.stdout).toContain("Added marketplace team-tools (2 plugins)");
    const discover = await omp(["discover", "--json"]);
    const offers = JSON.parse(discover.stdout);
    expect(offers.map((offer: { name: string }) => offer.name)).toEqual(["review", "whole", "Bad_Name", "svn-one"]);
    expect(offers[3].unavailable).toContain("unsupported entry");

    const install = await omp(["install", "review@team-tools"]);
    expect(install.code).toBe(0);
    expect(install.stdout).toContain("Installed review@team-tools 1.2.0 (user).");
    expect(install.stdout).toContain("hook PreToolUse (Bash): ${CLAUDE_PLUGIN_ROOT}/guard.sh");
    expect(install.stdout).toContain("MCP server notes: node server.js");
    const record = installed(home).plugins["review@team-tools"][0];
    expect(record).toMatchObject({ scope: "user", version: "1.2.0", enabled: true });
    expect(existsSync(join(record.installPath, "skills", "lint", "SKILL.md"))).toBe(true);
    expect(record.installPath).toBe(join(home, ".omp", "plugins", "cache", "plugins", "team-tools___review___1.2.0"));

    // "./" is the marketplace root itself: its catalog dir comes along.
    expect((await omp(["install", "whole@team-tools"])).code).toBe(0);
    expect(existsSync(join(installed(home).plugins["whole@team-tools"][0].installPath, ".claude-plugin", "marketplace.json"))).toBe(true);
    expect((await omp(["install", "Bad_Name@team-tools"])).code).not.toBe(0);
  });

  test("relative sources escaping the root by .. or by a symlink are refused", async () => {
    const { work, omp } = setup();
    const outside = writeTree(join(work, "outside"), { "commands/x.md": "secret" });
    const market = writeTree(join(work, "m"), {
      ".claude-plugin/marketplace.json": JSON.stringify({
        name: "sneaky",
        owner: { name: "x" },
        plugins: [
          { name: "up", source: "./../outside" },
          { name: "link", source: "./linked" },
          { name: "inner-link", source: "./p" },
        ],
      }),
      "p/commands/a.md": "a",
    });
    symlinkSync(outside, join(market, "linked"));
    symlinkSync(join(outside, "commands", "x.md"), join(market, "p", "commands", "leak.md"));
    expect((await omp(["marketplace", "add", market])).code).toBe(0);
    const up = await omp(["install", "up@sneaky"]);
    expect(up.code).toBe(1);
    expect(up.stderr).toContain("leads outside the marketplace folder; refused");
    const link = await omp(["install", "link@sneaky"]);
    expect(link.stderr).toContain("a link leading outside the marketplace folder; refused");
    const inner = await omp(["install", "inner-link@sneaky"]);
    expect(inner.stderr).toContain("leak.md is a link leading outside the plugin folder");
    expect((await omp(["list", "--json"])).stdout.trim()).toBe("[]");
  });

  test("a git repository over file:// and owner/repo over a git daemon; update pulls the new catalog", async () => {
    const { home, omp } = setup();
    const repo = join(gitBase, "acme", "market.git");
    commit(repo, {
      ".claude-plugin/marketplace.json": JSON.stringify({ name: "acme", owner: { name: "Acme" }, plugins: [{ name: "one", source: "./one" }] }),
      "one/commands/one.md": "One\n",
    });
    const viaFile = await omp(["marketplace", "add", `file://${repo}`]);
    expect(viaFile.stdout).toContain("Added marketplace acme (1 plugins)");
    expect((await omp(["marketplace", "remove", "acme"])).code).toBe(0);
    expect(existsSync(join(home, ".omp", "plugins", "cache", "marketplaces", "acme"))).toBe(false);

    const viaDaemon = await omp(["marketplace", "add", "acme/market"]);
    expect(viaDaemon.code).toBe(0);
    const list = JSON.parse((await omp(["marketplace", "list", "--json"])).stdout);
    expect(list).toEqual([expect.objectContaining({ name: "acme", sourceType: "github", sourceUri: "acme/market" })]);
    expect((await omp(["install", "one@acme"])).code).toBe(0);

    commit(repo, {
      ".claude-plugin/marketplace.json": JSON.stringify({ name: "acme", owner: { name: "Acme" }, plugins: [{ name: "one", source: "./one", version: "2.0.0" }, { name: "two", source: "./one" }] }),
    });
    expect((await omp(["marketplace", "update"])).stdout).toContain("Updated marketplace acme (2 plugins)");
    const update = await omp(["update", "one@acme"]);
    expect(update.stdout).toContain("Installed one@acme 2.0.0 (user) (was ");
    expect(installed(home).plugins["one@acme"]).toHaveLength(1);
    expect(readdirSync(join(home, ".omp", "plugins", "cache", "plugins"))).toEqual(["acme___one___2.0.0"]);
  });

  test("a URL to a marketplace.json: catalog cached, remote sources install, relative ones explain why not", async () => {
    const { omp } = setup();
    const plugin = join(gitBase, "org", "remote-plugin.git");
    const first = commit(plugin, { "commands/v.md": "version one\n" }, "one");
    commit(plugin, { "commands/v.md": "version two\n" }, "two");
    const mono = join(gitBase, "org", "mono.git");
    commit(mono, { "packages/sub/commands/s.md": "from subdir\n", "README.md": "x" });
    const catalog = {
      name: "served",
      owner: { name: "x" },
      plugins: [
        { name: "pinned", source: { source: "url", url: `file://${plugin}`, sha: first } },
        { name: "gh", source: { source: "github", repo: "org/remote-plugin", ref: "main" } },
        { name: "sub", source: { source: "git-subdir", url: `${daemon.url}/org/mono`, path: "packages/sub" } },
        { name: "escape", source: { source: "git-subdir", url: `${daemon.url}/org/mono`, path: "../.." } },
        { name: "from-npm", source: { source: "npm", package: "@team/npm-plugin" } },
        { name: "rel", source: "./rel" },
        {
          name: "loose",
          source: { source: "url", url: `file://${mono}` },
          strict: false,
          commands: ["./packages/sub/commands"],
          mcpServers: { inline: { command: "echo", args: ["hi"] } },
        },
      ],
    };
    const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => Response.json(catalog) });
    try {
      expect((await omp(["marketplace", "add", `http://127.0.0.1:${server.port}/marketplace.json`])).code).toBe(0);
    } finally {
      server.stop(true);
    }
    const json = async (id: string) => {
      const result = await omp(["install", id, "--json"]);
      expect(result.stderr).toBe("");
      return JSON.parse(result.stdout)[0];
    };
    const pinned = await json("pinned@served");
    expect(pinned.record.gitCommitSha).toBe(first);
    expect(readFileSync(join(pinned.record.installPath, "commands", "v.md"), "utf8")).toBe("version one\n");
    expect(existsSync(join(pinned.record.installPath, ".git"))).toBe(false);
    const gh = await json("gh@served");
    expect(readFileSync(join(gh.record.installPath, "commands", "v.md"), "utf8")).toBe("version two\n");
    const sub = await json("sub@served");
    expect(readFileSync(join(sub.record.installPath, "commands", "s.md"), "utf8")).toBe("from subdir\n");
    expect(existsSync(join(sub.record.installPath, "README.md"))).toBe(false);
    const npm = await json("from-npm@served");
    expect(npm.record.version).toBe("2.1.0");
    expect(readFileSync(join(npm.record.installPath, "commands", "hello.md"), "utf8")).toBe("Hello from npm\n");
    const loose = await json("loose@served");
    expect(loose.runs).toEqual(["MCP server inline: echo hi"]);
    const manifest = JSON.parse(readFileSync(join(loose.record.installPath, ".claude-plugin", "plugin.json"), "utf8"));
    expect(manifest.commands).toEqual(["./packages/sub/commands"]);

    const escape = await omp(["install", "escape@served"]);
    expect(escape.stderr).toContain('path "../.." leads outside its repository; refused');
    const rel = await omp(["install", "rel@served"]);
    expect(rel.stderr).toContain("added from a catalog URL, which has no folder");
  });
});

test("air-gapped: a marketplace copied as one .tgz is added and installed from with no git and no network", async () => {
  const { home, work, omp } = setup();
  writeTree(join(work, "copy", "team-market"), {
    ".claude-plugin/marketplace.json": JSON.stringify({ name: "offline", owner: { name: "x" }, plugins: [{ name: "kit", source: "./kit" }] }),
    ...Object.fromEntries(Object.entries(PLUGIN).map(([path, text]) => [`kit/${path}`, text])),
  });
  const { c } = await import("tar");
  const archive = join(work, "offline.tgz");
  await c({ gzip: true, file: archive, cwd: join(work, "copy") }, ["team-market"]);
  const offline = { PATH: "/nonexistent", npm_config_registry: "http://127.0.0.1:9/", OMP_GITHUB_URL: "http://127.0.0.1:9" };
  expect((await omp(["marketplace", "add", archive], work, offline)).stdout).toContain("Added marketplace offline (1 plugins)");
  const install = await omp(["install", "kit@offline"], work, offline);
  expect(install.stderr).toBe("");
  expect(readFileSync(join(installed(home).plugins["kit@offline"][0].installPath, "commands", "review.md"), "utf8")).toBe(PLUGIN["commands/review.md"]);
});

describe("installed plugins", () => {
  test("enable, disable, project scope shadowing the user's, uninstall removing the cache", async () => {
    const { home, work, omp } = setup();
    const project = join(work, "project");
    mkdirSync(join(project, ".git"), { recursive: true });
    const market = writeTree(join(work, "m"), {
      ".claude-plugin/marketplace.json": JSON.stringify({ name: "m", owner: { name: "x" }, plugins: [{ name: "p", source: "./p" }] }),
      "p/.claude-plugin/plugin.json": JSON.stringify({ name: "p", version: "0.3.0" }),
      "p/commands/c.md": "C\n",
    });
    await omp(["marketplace", "add", market]);
    expect((await omp(["install", "p@m"])).code).toBe(0);
    expect((await omp(["install", "p@m", "--scope", "project"], project)).stdout).toContain("Installed p@m 0.3.0 (project).");
    expect(existsSync(join(project, ".omp", "plugins", "installed_plugins.json"))).toBe(true);
    const list = JSON.parse((await omp(["list", "--json"], project)).stdout);
    expect(list.map((item: { scope: string; enabled: boolean }) => [item.scope, item.enabled])).toEqual([["project", true], ["user", true]]);

    expect((await omp(["disable", "p@m"], project)).stdout).toContain("Disabled p@m (project)");
    expect((await omp(["disable", "p@m", "--scope", "user"], project)).stdout).toContain("Disabled p@m (user)");
    const after = JSON.parse((await omp(["list", "--json"], project)).stdout);
    expect(after.every((item: { enabled: boolean }) => !item.enabled)).toBe(true);
    expect((await omp(["enable", "p@m", "--scope", "user"])).code).toBe(0);

    expect((await omp(["uninstall", "p@m", "--scope", "project"], project)).code).toBe(0);
    const path = installed(home).plugins["p@m"][0].installPath;
    expect(existsSync(path)).toBe(true);
    expect((await omp(["uninstall", "p@m"])).code).toBe(0);
    expect(existsSync(path)).toBe(false);
    const again = await omp(["uninstall", "p@m"]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("is not installed");
  });

  test("bad input is refused with a way forward", async () => {
    const { omp } = setup();
    expect((await omp(["install", "x@nowhere"])).stderr).toContain("no marketplace named nowhere");
    expect((await omp(["marketplace", "add", "-oops"])).code).not.toBe(0);
    const scope = await omp(["install", "a@b", "--scope", "global"]);
    expect(scope.code).toBe(2);
    expect(scope.stderr).toContain("--scope is user or project");
    const notMarket = await omp(["marketplace", "add", tempDir()]);
    expect(notMarket.stderr).toContain("it is not a marketplace");
  });
});
