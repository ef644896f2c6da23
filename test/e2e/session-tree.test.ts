// The session tree, fork, handoff and names on the compiled binary against the stand-in (issue 28):
// rpc get_tree / navigate / get_branch_messages / set_label, a navigation two turns back that goes
// on as a new branch, fork (CLI and rpc) with both sessions going on, a handoff whose new session's
// first request carries the brief, and omp -r listing names, first prompts and branch counts.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { agentTestFile, modelRequests, readJsonl, runAgent, sessionFiles, userTextsOf, workspace } from "../support/agent-harness.ts";
import { RpcProcess } from "../support/agent-rpc.ts";

const standin = await agentTestFile();
const MODEL = "anthropic/claude-opus-5-5";
const env = () => ({ ANTHROPIC_BASE_URL: standin.url, ANTHROPIC_API_KEY: `omptest_ant_${crypto.randomUUID().replaceAll("-", "")}` });

async function turn(rpc: RpcProcess, message: string): Promise<any> {
  const mark = rpc.mark;
  const response = await rpc.send({ type: "prompt", message });
  expect(response.success).toBe(true);
  const end = await rpc.waitFrame((f) => f.type === "agent_end", mark);
  expect(end.error).toBeUndefined();
  return end;
}

/** The user texts of the last request the stand-in saw. */
const lastUserTexts = () => userTextsOf("anthropic-messages", modelRequests(standin).at(-1)!.body);

describe("session tree over rpc", () => {
  test("navigate two turns back, continue on a new branch; get_tree shows both, labels persist, get_branch_messages follows the leaf", async () => {
    const { home, repo } = workspace();
    standin.setScript([{ text: "answer one" }, { text: "answer two" }, { text: "answer three" }, { text: "answer four" }, { text: "answer 2b" }]);
    const rpc = new RpcProcess(["--model", MODEL], { home, cwd: repo, env: env() });
    try {
      await rpc.waitFrame((f) => f.type === "ready");
      for (const word of ["one", "two", "three", "four"]) await turn(rpc, `turn ${word}`);
      const tree = (await rpc.send({ type: "get_tree" })).data;
      const users = tree.nodes.filter((n: any) => n.role === "user");
      expect(users.map((n: any) => n.text)).toEqual(["turn one", "turn two", "turn three", "turn four"]);
      const answerTwo = tree.nodes.find((n: any) => n.role === "assistant" && n.text === "answer two");
      expect(tree.leafId).toBe(tree.nodes.at(-1).id);

      // Two turns back: to just after "answer two".
      const moved = await rpc.send({ type: "navigate", entryId: answerTwo.id });
      expect(moved).toMatchObject({ success: true, data: { leafId: answerTwo.id, messageCount: 4 } });
      expect(moved.data.text).toBeUndefined();
      // The file stays this process's: its lock is held across the move (another omp -c would fork it).
      const file = (await rpc.send({ type: "get_state" })).data.sessionFile;
      expect(existsSync(join(dirname(file), `.${basename(file)}.lock`))).toBe(true);
      const label = await rpc.send({ type: "set_label", entryId: users[1].id, label: "before the detour" });
      expect(label.success).toBe(true);
      await turn(rpc, "turn 2b");
      // The model saw the conversation up to turn two, then the new message: not three and four.
      expect(lastUserTexts()).toEqual(["turn one", "turn two", "turn 2b"]);

      const after = (await rpc.send({ type: "get_tree" })).data;
      const byText = (text: string) => after.nodes.find((n: any) => n.text === text);
      expect(byText("turn 2b").label).toBeUndefined();
      expect(byText("turn two").label).toBe("before the detour");
      // Both branches hang below "answer two" (the label entry sits between it and turn 2b).
      const ancestors = (id: string) => {
        const out: string[] = [];
        for (let at = after.nodes.find((n: any) => n.id === id); at; at = after.nodes.find((n: any) => n.id === at.parentId)) out.push(at.id);
        return out;
      };
      expect(ancestors(byText("turn 2b").id)).toContain(answerTwo.id);
      expect(ancestors(byText("turn three").id)).toContain(answerTwo.id);
      expect(ancestors(byText("turn 2b").id)).not.toContain(byText("turn three").id);

      const branch = (await rpc.send({ type: "get_branch_messages" })).data.messages;
      expect(branch.map((m: any) => m.text)).toEqual(["turn one", "turn two", "turn 2b"]);
      // To a user message: just before it, its text back for the editor.
      const back = await rpc.send({ type: "navigate", entryId: byText("turn three").id });
      expect(back).toMatchObject({ success: true, data: { leafId: answerTwo.id, text: "turn three", messageCount: 4 } });
      // Over to the other branch's end.
      const other = await rpc.send({ type: "navigate", entryId: byText("answer four").id });
      expect(other.data.messageCount).toBe(8);
      expect((await rpc.send({ type: "get_branch_messages" })).data.messages.map((m: any) => m.text)).toEqual(["turn one", "turn two", "turn three", "turn four"]);
      const missing = await rpc.send({ type: "navigate", entryId: "nope" });
      expect(missing).toMatchObject({ success: false });
      expect(missing.error).toContain("no entry nope");
      expect(await rpc.close()).toBe(0);
    } finally {
      rpc.child.kill();
    }
    // The label is an entry of the file, and the file loads as one tree with two lines of work.
    const [file] = sessionFiles(home);
    const entries = readJsonl(file!);
    expect(entries.filter((e) => e.type === "label")).toEqual([expect.objectContaining({ label: "before the detour" })]);
    const listing = await runAgent(["-r"], { home, cwd: repo, env: env() });
    expect(listing.stdout).toMatch(/10 msgs +2 branches +turn one/);
  });

  test("fork: omp --fork and rpc fork copy the path to the leaf into a linked session; both go on independently", async () => {
    const { home, repo } = workspace();
    standin.setScript([{ text: "first answer" }, { text: "second answer" }, { text: "fork answer" }, { text: "original answer" }, { text: "rpc fork answer" }]);
    const rpc = new RpcProcess(["--model", MODEL], { home, cwd: repo, env: env() });
    let original: string;
    try {
      await rpc.waitFrame((f) => f.type === "ready");
      await turn(rpc, "first");
      await turn(rpc, "second");
      original = (await rpc.send({ type: "get_state" })).data.sessionFile;
      expect(await rpc.close()).toBe(0);
    } finally {
      rpc.child.kill();
    }
    const id = readJsonl(original)[0].id as string;
    const forked = await runAgent(["-p", "--fork", id.slice(0, 8), "in the fork"], { home, cwd: repo, env: env() });
    expect(forked.stderr).toBe("");
    expect(forked.stdout).toContain("fork answer");
    expect(lastUserTexts()).toEqual(["first", "second", "in the fork"]);
    const resumed = await runAgent(["-p", "-r", original, "in the original"], { home, cwd: repo, env: env() });
    expect(resumed.stdout).toContain("original answer");
    expect(lastUserTexts()).toEqual(["first", "second", "in the original"]);

    const files = sessionFiles(home);
    expect(files).toHaveLength(2);
    const fork = files.find((f) => f !== original)!;
    const forkEntries = readJsonl(fork);
    expect(forkEntries[0]).toMatchObject({ type: "session", parentSession: original });
    expect(forkEntries[0].id).not.toBe(id);
    const texts = (entries: any[]) => entries.filter((e) => e.type === "message" && e.message.role === "user").map((e) => e.message.content[0]?.text ?? e.message.content);
    expect(texts(forkEntries)).toEqual(["first", "second", "in the fork"]);
    expect(texts(readJsonl(original))).toEqual(["first", "second", "in the original"]);

    // rpc fork: the host continues in the copy.
    const again = new RpcProcess(["--model", MODEL, "-r", original], { home, cwd: repo, env: env() });
    try {
      await again.waitFrame((f) => f.type === "ready");
      const response = await again.send({ type: "fork" });
      expect(response).toMatchObject({ success: true, data: { parentSession: original, messageCount: 6 } });
      expect(response.data.sessionFile).not.toBe(original);
      await turn(again, "via rpc");
      expect(readJsonl(response.data.sessionFile)[0].parentSession).toBe(original);
      expect(await again.close()).toBe(0);
    } finally {
      again.child.kill();
    }
    expect(texts(readJsonl(original))).toEqual(["first", "second", "in the original"]);
    const bad = await runAgent(["-p", "--fork", "zzzzzz", "x"], { home, cwd: repo, env: env() });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('no session matches "zzzzzz"');
  });

  test("handoff: the model's brief seeds a new linked session whose first request carries it; set_session_name shows in omp -r", async () => {
    const { home, repo } = workspace();
    const brief = "## Goal\nShip the parser fix\n\n## Next\n1. run the tests";
    standin.setScript([{ text: "looked at the parser" }, { text: brief }, { text: "continuing from the brief" }]);
    const rpc = new RpcProcess(["--model", MODEL], { home, cwd: repo, env: env() });
    try {
      await rpc.waitFrame((f) => f.type === "ready");
      await turn(rpc, "fix the parser");
      const old = (await rpc.send({ type: "get_state" })).data.sessionFile;
      expect((await rpc.send({ type: "set_session_name", name: "parser work" })).success).toBe(true);
      const handoff = await rpc.send({ type: "handoff", customInstructions: "the failing tests" });
      expect(handoff).toMatchObject({ success: true, data: { document: brief, messageCount: 1 } });
      // The brief request: the conversation and the handoff task with the goal.
      const request = modelRequests(standin).at(-1)!.body;
      expect(JSON.stringify(request)).toContain("fix the parser");
      expect(JSON.stringify(request)).toContain("the failing tests");
      expect(handoff.data.sessionFile).not.toBe(old);
      expect(readJsonl(handoff.data.sessionFile)[0]).toMatchObject({ parentSession: old, title: "Handoff: the failing tests" });
      await turn(rpc, "go on");
      const first = lastUserTexts();
      expect(first).toHaveLength(2);
      expect(first[0]).toContain("<handoff-context");
      expect(first[0]).toContain("Ship the parser fix");
      expect(first[1]).toBe("go on");
      expect(JSON.stringify(modelRequests(standin).at(-1)!.body)).not.toContain("looked at the parser");
      expect(await rpc.close()).toBe(0);
    } finally {
      rpc.child.kill();
    }
    const listing = await runAgent(["-r"], { home, cwd: repo, env: env() });
    expect(listing.stdout).toContain("parser work — fix the parser");
    expect(listing.stdout).toContain("Handoff: the failing tests");
    expect(readFileSync(sessionFiles(home)[0]!, "utf8")).not.toContain("omptest_ant_");
  });
});
