// `omp extensions` lists every kind from one catalog: skills and commands, hooks (event, matcher,
// command, file), subagents, TypeScript extensions (what they registered, why one failed), rule
// files (stream rules among them, Claude Code's too, with how each applies), with
// an untrusted folder's hooks and extensions listed as skipped and never run. An extension's
// slash command is in the same command registry as the markdown ones (rpc).
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setFolderTrust } from "../../core/trust/folder-trust.ts";
import { agentTestFile, modelRequests, providerCases, runAgent, userTextsOf, workspace } from "../support/agent-harness.ts";
import { RpcProcess } from "../support/agent-rpc.ts";

const standin = await agentTestFile();
const provider = providerCases()[0]!;

function write(path: string, text: string): string {
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, text);
  return path;
}

const UNTRUSTED = "the folder is not trusted, so its code does not run (`omp trust` to allow it)";

function everyKind() {
  const { home, repo } = workspace();
  const agent = join(home, ".omp", "agent");
  const ran = join(home, "project-code-ran");
  write(join(agent, "commands", "deploy.md"), "---\ndescription: Deploy it\n---\nDeploy $ARGUMENTS\n");
  write(join(agent, "skills", "pdf", "SKILL.md"), "---\nname: pdf\ndescription: PDF files\n---\nbody\n");
  write(join(agent, "config.yml"), "hooks:\n  PreToolUse:\n    - matcher: Bash|Write\n      hooks:\n        - type: command\n          command: ./guard.sh\n          timeout: 5\n  NotAnEvent:\n    - hooks: []\n");
  write(join(agent, "extensions", "greeter.js"), 'export default (api) => { api.registerTool({ name: "greet", description: "g", parameters: { type: "object" }, execute: () => "hi" }); api.registerCommand("hello", { description: "Say hello", handler: () => "hi" }); };');
  write(join(agent, "extensions", "broken.js"), 'throw new Error("boom at import");');
  write(join(agent, "agents", "reviewer.md"), "---\nname: reviewer\ndescription: Reviews diffs\ntools: Read, Grep\n---\nYou review.\n");
  write(join(agent, "agents", "sloppy.md"), "just text, no frontmatter\n");
  write(join(repo, ".claude", "agents", "tester.md"), "---\nname: tester\ndescription: Runs tests\n---\nYou test.\n");
  write(join(repo, ".omp", "config.yml"), `hooks:\n  Stop:\n    - hooks:\n        - type: command\n          command: touch ${ran}-hook\n`);
  write(join(agent, "rules", "no-any.md"), "---\ndescription: No casts to any\ncondition: 'as any'\n---\nDo not cast to any.\n");
  write(join(home, ".claude", "rules", "style.md"), "---\npaths: src/**/*.ts\n---\nTwo-space indents.\n");
  write(join(repo, ".omp", "rules", "proj.md"), "---\nalwaysApply: true\n---\nThe project's rule.\n");
  write(join(repo, ".omp", "extensions", "proj.js"), `import { writeFileSync } from "node:fs"; writeFileSync(${JSON.stringify(`${ran}-ext`)}, "x"); export default (api) => api.registerTool({ name: "proj_tool", description: "p", parameters: { type: "object" }, execute: () => "p" });`);
  return { home, repo, agent, ran };
}

describe("omp extensions: every kind", () => {
  test("--json lists hooks, agents and TS extensions beside skills and commands; untrusted project code is skipped, not run, then loads once trusted", async () => {
    const { home, repo, agent, ran } = everyKind();
    const result = await runAgent(["extensions", "--json"], { home, cwd: repo });
    expect(result.code).toBe(0);
    const items: any[] = JSON.parse(result.stdout).items;
    const find = (kind: string, name: string) => items.find((item) => item.kind === kind && item.name === name);
    expect(find("command", "deploy")).toMatchObject({ status: "loaded", source: "user" });
    expect(find("skill", "pdf")).toMatchObject({ status: "loaded" });
    expect(find("hook", "PreToolUse Bash|Write")).toMatchObject({ status: "loaded", source: "user", path: join(agent, "config.yml"), event: "PreToolUse", matcher: "Bash|Write", command: "./guard.sh", timeoutSeconds: 5 });
    expect(items.find((item) => item.kind === "hook" && item.status === "skipped" && item.path === join(agent, "config.yml")).reason).toContain('unknown hook event "NotAnEvent"');
    expect(find("hook", "Stop *")).toMatchObject({ status: "skipped", source: "project", path: join(repo, ".omp", "config.yml"), command: `touch ${ran}-hook`, reason: UNTRUSTED });
    expect(find("agent", "general-purpose")).toMatchObject({ status: "loaded" });
    expect(find("agent", "reviewer")).toMatchObject({ status: "loaded", source: "user", path: join(agent, "agents", "reviewer.md"), description: "Reviews diffs" });
    expect(find("agent", "tester")).toMatchObject({ status: "loaded", source: "project", path: join(repo, ".claude", "agents", "tester.md") });
    expect(find("agent", "sloppy")).toMatchObject({ status: "skipped", source: "user" });
    expect(find("agent", "sloppy").reason).toContain("no frontmatter");
    const greeter = items.find((item) => item.kind === "extension" && item.path === join(agent, "extensions", "greeter.js"));
    expect(greeter).toMatchObject({ status: "loaded", source: "user", tools: ["greet"], commands: ["hello"] });
    const broken = items.find((item) => item.kind === "extension" && item.path === join(agent, "extensions", "broken.js"));
    expect(broken).toMatchObject({ status: "skipped", reason: "failed to load: boom at import" });
    const project = items.find((item) => item.kind === "extension" && item.path === join(repo, ".omp", "extensions", "proj.js"));
    expect(project).toMatchObject({ status: "skipped", source: "project", reason: UNTRUSTED });
    expect(find("rule", "no-any")).toMatchObject({ status: "loaded", source: "user", path: join(agent, "rules", "no-any.md"), description: "No casts to any", origin: "user", condition: ["as any"] });
    expect(find("rule", "style")).toMatchObject({ status: "loaded", source: "user", path: join(home, ".claude", "rules", "style.md"), origin: "claude-user", globs: ["src/**/*.ts"] });
    expect(find("rule", "proj")).toMatchObject({ status: "skipped", source: "project", path: join(repo, ".omp", "rules", "proj.md") });
    expect(find("rule", "proj").reason).toContain("not trusted");
    // Listing never runs an untrusted folder's code.
    expect(existsSync(`${ran}-ext`)).toBe(false);
    expect(existsSync(`${ran}-hook`)).toBe(false);

    const text = await runAgent(["extensions"], { home, cwd: repo });
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^Hooks \(1 loaded, 2 skipped\)$/m);
    expect(text.stdout).toMatch(/^ {2}PreToolUse Bash\|Write +user +~\/\.omp\/agent\/config\.yml → \.\/guard\.sh$/m);
    expect(text.stdout).toMatch(/^✗ Stop \* +project +\.omp\/config\.yml → touch .* — the folder is not trusted/m);
    expect(text.stdout).toMatch(/^Agents \(3 loaded, 1 skipped\)$/m);
    expect(text.stdout).toMatch(/^Extensions \(1 loaded, 2 skipped\)$/m);
    expect(text.stdout).toMatch(/greeter\.js +user +~\/\.omp\/agent\/extensions\/greeter\.js → tool greet, \/hello$/m);
    expect(text.stdout.indexOf("Skills")).toBeLessThan(text.stdout.indexOf("Hooks"));
    expect(text.stdout).toMatch(/^Rules \(2 loaded, 1 skipped\)$/m);
    expect(text.stdout).toMatch(/^ {2}no-any +user +~\/\.omp\/agent\/rules\/no-any\.md → stream rule: as any$/m);
    expect(text.stdout).toMatch(/^ {2}style +user +~\/\.claude\/rules\/style\.md → for src\/\*\*\/\*\.ts$/m);
    expect(text.stdout).toMatch(/^✗ proj +project +\.omp\/rules\/proj\.md — the folder is not trusted/m);

    setFolderTrust(repo, true, { OMP_AGENT_DIR: agent });
    const trusted = JSON.parse((await runAgent(["extensions", "--json"], { home, cwd: repo })).stdout).items as any[];
    expect(trusted.find((item) => item.kind === "hook" && item.name === "Stop *")).toMatchObject({ status: "loaded", source: "project" });
    expect(trusted.find((item) => item.kind === "extension" && item.path === join(repo, ".omp", "extensions", "proj.js"))).toMatchObject({ status: "loaded", tools: ["proj_tool"] });
    expect(trusted.find((item) => item.kind === "rule" && item.name === "proj")).toMatchObject({ status: "loaded", source: "project", alwaysApply: true });
  });
});

/**
 * A home with a markdown command and an extension registering `registrations` (JS run inside its
 * factory, with `api` and `log`, the file a handler may append to).
 */
function commandHome(markdown: [string, string], registrations: string) {
  const { home, repo } = workspace();
  const agent = join(home, ".omp", "agent");
  const log = join(home, "handled.log");
  write(join(agent, "commands", `${markdown[0]}.md`), markdown[1]);
  write(join(agent, "extensions", "cmds.js"), `import { appendFileSync } from "node:fs";\nconst log = ${JSON.stringify(log)};\nexport default (api) => {\n${registrations}\n};`);
  return { home, repo, agent, log };
}

describe("an extension's slash commands beside the markdown ones", () => {
  test("rpc: get_available_commands offers it; a prompt /name args sends its handler's text; a handler that sends nothing starts no run", async () => {
    const { home, repo, agent, log } = commandHome(
      ["review", "---\ndescription: Review a file\n---\nReview $ARGUMENTS\n"],
      `api.registerCommand("greet-all", { description: "Greets everyone", handler: (args, ctx) => "Please greet " + args + " from " + ctx.cwd });
api.registerCommand("note", { description: "Notes it down", handler: (args, ctx) => { appendFileSync(log, args + " " + ctx.sessionId + "\\n"); } });`,
    );
    standin.setScript([{ text: "greeted" }]);
    standin.requests.length = 0;
    const rpc = new RpcProcess(["--model", provider.model], { home, cwd: repo, env: provider.env(standin.url) });
    try {
      await rpc.out.waitFor(() => true);
      const listed = await rpc.send({ type: "get_available_commands" });
      const byName = new Map<string, any>(listed.data.commands.map((c: any) => [c.name, c]));
      expect(byName.get("review")).toMatchObject({ kind: "command" });
      expect(byName.get("greet-all")).toMatchObject({ kind: "extension", description: "Greets everyone", path: join(agent, "extensions", "cmds.js") });
      expect(byName.get("note")).toMatchObject({ kind: "extension" });

      const noted = await rpc.send({ type: "prompt", message: "/note buy milk" });
      expect(noted.data).toMatchObject({ agentInvoked: false, invoked: { kind: "command", name: "note" } });
      const mark = rpc.mark;
      const prompted = await rpc.send({ type: "prompt", message: "/greet-all the team" });
      expect(prompted.data).toMatchObject({ agentInvoked: true, invoked: { kind: "command", name: "greet-all", path: join(agent, "extensions", "cmds.js") } });
      await rpc.waitFrame((f) => f.type === "agent_end", mark);
      const requests = modelRequests(standin);
      expect(requests.length).toBe(1);
      expect(userTextsOf(provider.api, requests[0]!.body)).toEqual([`Please greet the team from ${repo}`]);
      const handled = readFileSync(log, "utf8");
      expect(handled).toMatch(/^buy milk [0-9a-f-]{8,}\n$/);
    } finally {
      expect(await rpc.close()).toBe(0);
    }
  });

  test("print mode: the same registry runs the command; a handler that sends nothing exits 0 without a request, and a markdown command of the same name wins", async () => {
    const { home, repo, log } = commandHome(
      ["shadow", "---\ndescription: Markdown one\n---\nMARKDOWN $ARGUMENTS\n"],
      `api.registerCommand("note", { handler: (args) => { appendFileSync(log, args + "\\n"); } });
api.registerCommand("shadow", { handler: () => "EXTENSION" });`,
    );
    const run = async (prompt: string) => {
      standin.requests.length = 0;
      const result = await runAgent(["-p", "--model", provider.model, prompt], { home, cwd: repo, env: provider.env(standin.url) });
      return { ...result, requests: modelRequests(standin) };
    };
    const noted = await run("/note buy milk");
    expect(noted.code).toBe(0);
    expect(noted.requests).toHaveLength(0);
    expect(readFileSync(log, "utf8")).toBe("buy milk\n");
    standin.setScript([{ text: "ok" }]);
    const shadowed = await run("/shadow now");
    expect(shadowed.code).toBe(0);
    expect(userTextsOf(provider.api, shadowed.requests[0]!.body)).toEqual(["MARKDOWN now"]);
  });
});
