// read's range lists, :raw and :conflicts, and resolve of one conflict hunk, in the compiled omp:
// the conflicts come from a real `git merge` in a temp repository.
import { describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { agentTestFile, modelRequests, runAgent, runGit, toolResultsOf, workspace } from "../support/agent-harness.ts";
import { RpcProcess } from "../support/agent-rpc.ts";

const standin = await agentTestFile();
const MODEL = "anthropic/claude-sonnet-4-5";
const env = { ANTHROPIC_BASE_URL: standin.url, ANTHROPIC_API_KEY: "sk-ant-test" };

const git = (cwd: string, ...args: string[]) => runGit(cwd, ...args).output;

/** A repository mid-merge: c.txt has two conflict hunks (diff3 style when asked). */
function conflicted(style: "merge" | "diff3") {
  const ws = workspace({ "c.txt": "head\nalpha\nmiddle 1\nmiddle 2\nmiddle 3\nmiddle 4\nmiddle 5\nmiddle 6\nmiddle 7\nbeta\ntail\n" });
  git(ws.repo, "config", "merge.conflictStyle", style);
  git(ws.repo, "checkout", "-q", "-b", "feature");
  writeFileSync(join(ws.repo, "c.txt"), "head\nalpha-feature\nmiddle 1\nmiddle 2\nmiddle 3\nmiddle 4\nmiddle 5\nmiddle 6\nmiddle 7\nbeta-feature\ntail\n");
  git(ws.repo, "commit", "-qam", "feature");
  git(ws.repo, "checkout", "-q", "main");
  writeFileSync(join(ws.repo, "c.txt"), "head\nalpha-main\nmiddle 1\nmiddle 2\nmiddle 3\nmiddle 4\nmiddle 5\nmiddle 6\nmiddle 7\nbeta-main\ntail\n");
  git(ws.repo, "commit", "-qam", "main");
  expect(git(ws.repo, "merge", "feature")).toContain("CONFLICT (content): Merge conflict in c.txt");
  return ws;
}

describe("read forms", () => {
  test("range lists, :raw either way round, and a file whose name looks like a selector", async () => {
    const ws = workspace({ "f.txt": "one\ntwo\nthree\nfour\nfive\nsix\nseven\n", "a:1-2": "the literal file\n" });
    const paths = ["f.txt:1-2,5-6", "f.txt:2-3:raw", "f.txt:raw:6-", "a:1-2", "f.txt:9-10,12", "f.txt:6-7,20-22"];
    standin.setScript([{ toolCalls: paths.map((path) => ({ name: "read", arguments: { path } })) }, { text: "done" }]);
    standin.requests.length = 0;
    await runAgent(["-p", "--model", MODEL, "go"], { home: ws.home, cwd: ws.repo, env });
    const [list, raw, rawOpen, literal, past, partly] = toolResultsOf("anthropic-messages", modelRequests(standin)[1]!.body);
    expect(list!.text).toBe("1\tone\n2\ttwo\n...\n5\tfive\n6\tsix");
    expect(raw!.text).toStartWith("two\nthree\n\n[Showing lines 2-3 of 7.");
    expect(rawOpen!.text).toBe("six\nseven");
    expect(literal!.text).toContain("1\tthe literal file");
    expect(past!.isError).toBe(true);
    expect(past!.text).toContain("f.txt has 7 lines; lines 9-10, 12- do not exist.");
    expect(partly!.text).toStartWith("6\tsix\n7\tseven\n\n[f.txt has 7 lines; lines 20-22 do not exist.]");
  });

  test("c.txt:conflicts lists a real merge's hunks by id; resolve settles one and leaves the other; conflict://<id>/ours reads a side", async () => {
    const ws = conflicted("diff3");
    standin.setScript([
      { toolCalls: [{ name: "read", arguments: { path: "c.txt:conflicts" } }] },
      {
        toolCalls: [
          { name: "resolve", arguments: { path: "conflict://2", pick: "theirs" } },
          { name: "read", arguments: { path: "conflict://1/ours" } },
          { name: "read", arguments: { path: "conflict://1/base" } },
          { name: "resolve", arguments: { path: "conflict://2", pick: "ours" } },
          { name: "read", arguments: { path: "c.txt:conflicts" } },
        ],
      },
      // The original omp's form: write conflict://<id> with the hunk's replacement (resolve's pick edited).
      { toolCalls: [{ name: "resolve", arguments: { path: "conflict://1", pick: "edited" } }, { name: "write", arguments: { path: "conflict://1", content: "alpha-both\n" } }, { name: "read", arguments: { path: "c.txt:conflicts" } }] },
      { text: "done" },
    ]);
    standin.requests.length = 0;
    const run = await runAgent(["-p", "--model", MODEL, "fix the merge"], { home: ws.home, cwd: ws.repo, env });
    expect(run.code).toBe(0);
    const requests = modelRequests(standin);
    const [listing] = toolResultsOf("anthropic-messages", requests[1]!.body);
    expect(listing!.text).toContain("c.txt: 2 unresolved conflicts.");
    expect(listing!.text).toContain("conflict://1 (c.txt lines 2-8; ours HEAD, theirs feature, base");
    expect(listing!.text).toContain("<<<<<<< HEAD\nalpha-main\n||||||| ");
    expect(listing!.text).toContain("conflict://2 (c.txt lines 16-22;");
    const [resolved, ours, base, again, relisted] = toolResultsOf("anthropic-messages", requests[2]!.body).slice(-5);
    expect(resolved!.text).toBe("Resolved conflict://2 in c.txt (lines 16-22) with theirs. c.txt still has 1 conflict.");
    expect(ours!.text).toContain("1\talpha-main");
    expect(base!.text).toContain("1\talpha");
    // Settled: its id is gone; the other keeps its id.
    expect(again!.isError).toBe(true);
    expect(again!.text).toContain("There is no conflict://2 in this session");
    expect(relisted!.text).toContain("c.txt: 1 unresolved conflict.");
    expect(relisted!.text).toContain("conflict://1 (c.txt lines 2-8;");
    const [noContent, edited, none] = toolResultsOf("anthropic-messages", requests[3]!.body).slice(-3);
    expect(noContent).toMatchObject({ isError: true, text: "pick edited needs content: the text that replaces the whole hunk, markers and all." });
    expect(edited!.text).toContain("c.txt has no conflict markers left.");
    expect(none!.text).toBe("c.txt has no merge-conflict markers (<<<<<<< … ======= … >>>>>>>).");
    expect(readFileSync(join(ws.repo, "c.txt"), "utf8")).toBe("head\nalpha-both\nmiddle 1\nmiddle 2\nmiddle 3\nmiddle 4\nmiddle 5\nmiddle 6\nmiddle 7\nbeta-feature\ntail\n");
  });

  test("under --approval-mode write resolve asks with the file's diff; Deny leaves the file, Allow writes it", async () => {
    const ws = conflicted("merge");
    const before = readFileSync(join(ws.repo, "c.txt"), "utf8");
    standin.setScript([
      { toolCalls: [{ name: "read", arguments: { path: "c.txt:conflicts" } }] },
      { toolCalls: [{ name: "resolve", arguments: { path: "conflict://1", pick: "both" } }] },
      { toolCalls: [{ name: "resolve", arguments: { path: "conflict://1", pick: "both" } }] },
      { text: "done" },
    ]);
    const rpc = new RpcProcess(["--model", MODEL, "--approval-mode", "write"], { home: ws.home, cwd: ws.repo, env });
    try {
      await rpc.waitFrame((f) => f.type === "ready");
      let mark = rpc.mark;
      await rpc.send({ type: "prompt", message: "resolve it" });
      const denied = await rpc.waitFrame((f) => f.type === "extension_ui_request", mark);
      expect(denied).toMatchObject({ toolName: "resolve" });
      expect(denied.changes).toEqual([expect.objectContaining({ path: join(ws.repo, "c.txt"), op: "update", oldText: before, added: 0, removed: 3 })]);
      expect(denied.message).toContain("-<<<<<<< HEAD\n alpha-main\n-=======\n alpha-feature\n->>>>>>> feature");
      expect(denied.message).not.toContain("beta");
      rpc.writeLine(JSON.stringify({ type: "extension_ui_response", id: denied.id, value: "Deny" }));
      await rpc.waitFrame((f) => f.type === "agent_end", mark);
      expect(readFileSync(join(ws.repo, "c.txt"), "utf8")).toBe(before);
      mark = rpc.mark;
      await rpc.send({ type: "prompt", message: "go on" });
      const allowed = await rpc.waitFrame((f) => f.type === "extension_ui_request", mark);
      rpc.writeLine(JSON.stringify({ type: "extension_ui_response", id: allowed.id, value: "Allow" }));
      await rpc.waitFrame((f) => f.type === "agent_end", mark);
      expect(await rpc.close()).toBe(0);
    } finally {
      rpc.child.kill();
    }
    expect(readFileSync(join(ws.repo, "c.txt"), "utf8")).toStartWith("head\nalpha-main\nalpha-feature\nmiddle 1\n");
  });
});

describe("internal URLs", () => {
  test("skill:// reads a loaded skill and its files; agent:// and history:// a subagent's output and transcript; local:// a note written there", async () => {
    const ws = workspace();
    mkdirSync(join(ws.home, ".omp", "agent", "skills", "deploy", "refs"), { recursive: true });
    writeFileSync(join(ws.home, ".omp", "agent", "skills", "deploy", "SKILL.md"), "---\nname: deploy\ndescription: Ship the app\n---\nRun the deploy checklist.\n");
    writeFileSync(join(ws.home, ".omp", "agent", "skills", "deploy", "refs", "checklist.md"), "1. build\n2. ship\n");
    standin.setScript([
      { toolCalls: [{ name: "task", arguments: { subagent_type: "general-purpose", description: "look", prompt: "look at src/math.sh" } }] },
      { toolCalls: [{ name: "read", arguments: { path: "src/math.sh" } }] },
      { text: "SUBAGENT-REPORT: add subtracts" },
      {
        toolCalls: [
          { name: "read", arguments: { path: "skill://" } },
          { name: "read", arguments: { path: "skill://deploy" } },
          { name: "read", arguments: { path: "skill://deploy/refs/checklist.md:2" } },
          { name: "read", arguments: { path: "skill://deploy/../../../../.bashrc" } },
          { name: "read", arguments: { path: "agent://" } },
          { name: "read", arguments: { path: "agent://1" } },
          { name: "read", arguments: { path: "history://1" } },
          { name: "read", arguments: { path: "agent://7" } },
          { name: "write", arguments: { path: "local://notes/ctx.md", content: "shared background\n" } },
        ],
      },
      { toolCalls: [{ name: "read", arguments: { path: "local://" } }, { name: "read", arguments: { path: "local://notes/ctx.md" } }, { name: "read", arguments: { path: "local://../x" } }] },
      { text: "done" },
    ]);
    standin.requests.length = 0;
    const run = await runAgent(["-p", "--model", MODEL, "go"], { home: ws.home, cwd: ws.repo, env });
    expect(run.code).toBe(0);
    const requests = modelRequests(standin);
    const [skills, skill, file, escape, agents, output, history, missing, wrote] = toolResultsOf("anthropic-messages", requests[4]!.body).slice(-9);
    expect(skills!.text).toBe("skill://deploy — Ship the app");
    expect(skill!.text).toBe("1\tRun the deploy checklist.");
    expect(file!.text).toBe("2\t2. ship");
    expect(escape).toMatchObject({ isError: true, text: expect.stringContaining("leads outside the skill's folder") });
    expect(agents!.text).toContain("agent://1, history://1 — ");
    expect(output!.text).toBe("1\tSUBAGENT-REPORT: add subtracts");
    expect(history!.text).toContain("[user]");
    expect(history!.text).toContain('→ read {"path":"src/math.sh"}');
    expect(history!.text).toContain("[read result]");
    expect(history!.text).toContain("[assistant]");
    expect(history!.text).toContain("SUBAGENT-REPORT: add subtracts");
    expect(missing).toMatchObject({ isError: true, text: "There is no agent://7 in this session. Subagents: agent://1." });
    expect(wrote!.isError).toBeFalsy();
    const [listing, note, outside] = toolResultsOf("anthropic-messages", requests[5]!.body).slice(-3);
    expect(listing!.text).toBe("local://notes/ctx.md");
    expect(note!.text).toBe("1\tshared background");
    expect(outside).toMatchObject({ isError: true, text: expect.stringContaining("leads outside the session's local:// folder") });
  });
});
