// Issue 29, settings: profiles laid over the global config (`--profile`, OMP_PROFILE, `omp config
// get --show-origin`), per-tool approval (`tools.approval.<tool>: allow|ask|deny`) applied by the
// gate with the stand-in model calling the tools, and the settings the original omp has that change
// behaviour here: read.defaultLimit, bashInterceptor.enabled, compaction.thresholdPercent.
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runOmp } from "../support/omp.ts";
import { agentTestFile, modelRequests, providerCases, readJsonl, runAgent, sessionFiles, toolResultsOf, workspace } from "../support/agent-harness.ts";
import type { Turn } from "../support/standin/index.ts";

const standin = await agentTestFile();
const provider = providerCases()[0]!;

function writeConfig(home: string, file: string, text: string): void {
  const path = join(home, ".omp", "agent", file);
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, text);
}

/** One print run with `script` as the model's turns; the tool results the model saw last, in order. */
async function run(ws: { home: string; repo: string }, script: Turn[], args: string[] = [], env: Record<string, string> = {}) {
  standin.requests.length = 0;
  standin.setScript(script);
  const result = await runAgent(["-p", ...args, "--model", provider.model, "go"], { home: ws.home, cwd: ws.repo, env: { ...provider.env(standin.url), ...env } });
  const last = modelRequests(standin).at(-1);
  return { ...result, results: last ? toolResultsOf(provider.api, last.body).map((r) => r.text) : [] };
}

const bash = (command: string, id = "b1") => ({ toolCalls: [{ id, name: "bash", arguments: { command } }] });

describe("profiles", () => {
  test("a profile overlays the global config, under the project and flags; config get shows its value and source", async () => {
    const ws = workspace();
    writeConfig(ws.home, "config.yml", "thinking: low\nread:\n  defaultLimit: 50\n");
    writeConfig(ws.home, "profiles/strict.yml", "thinking: high\ntools:\n  approval:\n    bash: deny\n");
    const get = (args: string[], env: Record<string, string> = {}) => runOmp(["config", "get", ...args], { home: ws.home, cwd: ws.repo, env });

    expect((await get(["thinking"])).stdout).toBe("low\n");
    expect((await get(["thinking", "--profile", "strict", "--show-origin"])).stdout).toBe("high\tprofile (~/.omp/agent/profiles/strict.yml)\n");
    expect((await get(["thinking"], { OMP_PROFILE: "strict" })).stdout).toBe("high\n");
    // What the profile leaves alone comes from the global file.
    expect((await get(["read.defaultLimit", "--profile", "strict", "--show-origin"])).stdout).toBe("50\tglobal (~/.omp/agent/config.yml)\n");
    // The project's file wins over the profile.
    mkdirSync(join(ws.repo, ".omp"));
    writeFileSync(join(ws.repo, ".omp", "config.yml"), "thinking: minimal\n");
    await runOmp(["trust", ws.repo], { home: ws.home, cwd: ws.repo });
    expect((await get(["thinking", "--profile", "strict"])).stdout).toBe("minimal\n");

    // The profile changes what the agent does: its bash is denied, without it bash runs.
    const marker = "echo ran > ran.txt";
    const strict = await run(ws, [bash(marker), { text: "done" }], ["--profile", "strict"]);
    expect(strict.code).toBe(0);
    expect(strict.results[0]).toContain("the setting tools.approval.bash is deny");
    expect(existsSync(join(ws.repo, "ran.txt"))).toBe(false);
    const plain = await run(ws, [bash(marker), { text: "done" }]);
    expect(plain.code).toBe(0);
    expect(existsSync(join(ws.repo, "ran.txt"))).toBe(true);
  });

  test("an unknown profile is an error listing the profiles there are; set --profile creates one", async () => {
    const ws = workspace();
    writeConfig(ws.home, "profiles/work.yml", "thinking: high\n");
    writeConfig(ws.home, "profiles/home.yml", "thinking: low\n");
    const agent = await runAgent(["-p", "--profile", "wrok", "hi"], { home: ws.home, cwd: ws.repo, env: provider.env(standin.url) });
    expect(agent.code).toBe(2);
    expect(agent.stderr).toContain('unknown profile "wrok": no ~/.omp/agent/profiles/wrok.yml; profiles: home, work');
    const get = await runOmp(["config", "get", "thinking", "--profile", "wrok"], { home: ws.home, cwd: ws.repo });
    expect(get.code).toBe(2);
    expect(get.stderr).toContain("profiles: home, work");
    expect((await runOmp(["config", "get", "thinking", "--profile", "../config"], { home: ws.home, cwd: ws.repo })).stderr).toContain("is not valid");

    const set = await runOmp(["config", "set", "--profile", "ci", "compaction.thresholdPercent", "70"], { home: ws.home, cwd: ws.repo });
    expect(set.code).toBe(0);
    expect(readFileSync(join(ws.home, ".omp", "agent", "profiles", "ci.yml"), "utf8")).toBe("compaction:\n  thresholdPercent: 70\n");
    expect((await runOmp(["config", "get", "compaction.thresholdPercent", "--profile", "ci"], { home: ws.home, cwd: ws.repo })).stdout).toBe("70\n");
    // A project may not take what only the user decides.
    const project = await runOmp(["config", "set", "--project", "sandbox.mode", "off"], { home: ws.home, cwd: ws.repo });
    expect(project.code).toBe(2);
    expect(project.stderr).toContain("sandbox.mode is the user's alone");
    expect(existsSync(join(ws.repo, ".omp", "config.yml"))).toBe(false);
    // An untrusted folder's file is written, and the note says omp skips what it may not give (a lower approval mode).
    writeConfig(ws.home, "config.yml", "approvalMode: always-ask\n");
    const untrusted = await runOmp(["config", "set", "--project", "approvalMode", "yolo"], { home: ws.home, cwd: ws.repo });
    expect(untrusted.code).toBe(0);
    expect(untrusted.stderr).toContain(`this folder is not trusted, so omp skips approvalMode from ${join(ws.repo, ".omp", "config.yml")} (\`omp trust\` allows it)`);
    expect(readFileSync(join(ws.repo, ".omp", "config.yml"), "utf8")).toBe("approvalMode: yolo\n");
    const wins = await runOmp(["config", "set", "thinking", "low"], { home: ws.home, cwd: ws.repo, env: { OMP_PROFILE: "work" } });
    expect(wins.stderr).toContain("profile (~/.omp/agent/profiles/work.yml) also sets thinking, and wins in this directory");
  });
});

describe("tools.approval.<tool>", () => {
  test("deny refuses in every mode, naming the setting, even where a permission rule allows", async () => {
    const ws = workspace();
    writeConfig(ws.home, "config.yml", "tools:\n  approval:\n    bash: deny\n");
    mkdirSync(join(ws.home, ".claude"), { recursive: true });
    writeFileSync(join(ws.home, ".claude", "settings.json"), JSON.stringify({ permissions: { allow: ["Bash"] } }));
    const { code, results } = await run(ws, [bash("echo x > denied.txt"), { toolCalls: [{ id: "r1", name: "read", arguments: { path: "README.md" } }] }, { text: "done" }]);
    expect(code).toBe(0);
    expect(results[0]).toContain("bash was not run: the setting tools.approval.bash is deny");
    expect(existsSync(join(ws.repo, "denied.txt"))).toBe(false);
    // Other tools are untouched.
    expect(results[1]).not.toContain("was not run");
  });

  test("ask asks even in yolo mode: with nobody to ask the call is refused, saying so", async () => {
    const ws = workspace();
    writeConfig(ws.home, "config.yml", "approvalMode: yolo\ntools:\n  approval:\n    write: ask\n");
    const { results } = await run(ws, [{ toolCalls: [{ id: "w1", name: "write", arguments: { path: "asked.txt", content: "x\n" } }] }, bash("echo fine > fine.txt"), { text: "done" }]);
    expect(results[0]).toContain("write was not run: the setting tools.approval.write is ask, and there is nobody to ask");
    expect(existsSync(join(ws.repo, "asked.txt"))).toBe(false);
    expect(existsSync(join(ws.repo, "fine.txt"))).toBe(true);
  });

  test("allow skips the mode's prompt, but not the sandbox or a permission deny rule", async () => {
    const ws = workspace();
    // `prompt` is the original omp's word for ask.
    writeConfig(ws.home, "config.yml", "approvalMode: always-ask\ntools:\n  approval:\n    bash: allow\n    write: prompt\n");
    mkdirSync(join(ws.home, ".claude"), { recursive: true });
    writeFileSync(join(ws.home, ".claude", "settings.json"), JSON.stringify({ permissions: { deny: ["Bash(rm:*)"] } }));
    const { results } = await run(
      ws,
      [bash("echo ok > allowed.txt", "b1"), bash("echo x > ~/outside.txt", "b2"), bash("rm README.md", "b3"), { toolCalls: [{ id: "w1", name: "write", arguments: { path: "w.txt", content: "x\n" } }] }, { text: "done" }],
      [],
      { TMPDIR: join(ws.repo, ".tmp") },
    );
    expect(existsSync(join(ws.repo, "allowed.txt"))).toBe(true);
    expect(results[1]).toContain("[omp sandbox] This command ran sandboxed");
    expect(existsSync(join(ws.home, "outside.txt"))).toBe(false);
    expect(results[2]).toContain("denies it");
    expect(existsSync(join(ws.repo, "README.md"))).toBe(true);
    expect(results[3]).toContain("tools.approval.write is ask");
  });
});

describe("settings the original omp has", () => {
  test("read.defaultLimit: read without a limit returns that many lines", async () => {
    const ws = workspace({ "big.txt": Array.from({ length: 40 }, (_, i) => `line ${i + 1}`).join("\n") + "\n" });
    const readBig = [{ toolCalls: [{ id: "r1", name: "read", arguments: { path: "big.txt" } }] }, { text: "done" }];
    const all = await run(ws, readBig);
    expect(all.results[0]).toContain("line 40");
    writeConfig(ws.home, "config.yml", "read:\n  defaultLimit: 5\n");
    const five = await run(ws, readBig);
    expect(five.results[0]).toContain("line 5");
    expect(five.results[0]).not.toContain("line 6");
    expect(five.results[0]).toContain("offset=6");
  });

  test("bashInterceptor.enabled: cat/grep/find/sed -i in bash are refused with the tool to use; other commands run", async () => {
    const ws = workspace();
    const script = [bash("cat README.md", "b1"), bash("grep -rn hello .", "b2"), bash("cat README.md | wc -l", "b3"), { text: "done" }];
    const off = await run(ws, script);
    expect(off.results[0]).not.toContain("Blocked");
    writeConfig(ws.home, "config.yml", "bashInterceptor:\n  enabled: true\n");
    const on = await run(ws, script);
    expect(on.results[0]).toContain("Blocked: this command reads a file; use the read tool instead");
    expect(on.results[1]).toContain("use the grep tool instead");
    expect(on.results[2]).not.toContain("Blocked");
  });

  test("compaction.thresholdPercent: compaction starts once the context passes that share of the window", async () => {
    const ws = workspace();
    writeConfig(ws.home, "config.yml", "compaction:\n  keepRecentTokens: 5\n");
    const first: Turn[] = [{ text: "First answer.", usage: { input: 150_000 } }];
    const again: Turn[] = [{ text: "SUMMARY: earlier work." }, { text: "Second answer." }];
    // 150k tokens: below the reserve-based default (the window less 16k, at least half of it) of a 200k window and up.
    await run(ws, first);
    await run(ws, [{ text: "Second answer." }], ["-c"]);
    expect(readJsonl(sessionFiles(ws.home)[0]!).some((entry) => entry.type === "compaction")).toBe(false);
    const ws2 = workspace();
    writeConfig(ws2.home, "config.yml", "compaction:\n  keepRecentTokens: 5\n  thresholdPercent: 10\n");
    await run(ws2, first);
    const second = await run(ws2, again, ["-c"]);
    expect(second.code).toBe(0);
    expect(readJsonl(sessionFiles(ws2.home)[0]!).some((entry) => entry.type === "compaction" && entry.summary.includes("SUMMARY"))).toBe(true);
  });
});
