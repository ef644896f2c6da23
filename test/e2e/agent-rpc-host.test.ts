// `--mode rpc` for hosts (editors, GUIs), on the compiled binary: approvals asked with
// extension_ui_request and answered with extension_ui_response, so --approval-mode write works;
// session names, HTML export of the whole conversation after a compaction, branching, model and
// thinking cycling.
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { agentTestFile, modelRequests, readJsonl, runAgent, sessionFiles, toolResultsOf, workspace } from "../support/agent-harness.ts";
import { RpcProcess } from "../support/agent-rpc.ts";

const standin = await agentTestFile();
const MODEL = "anthropic/claude-opus-5-5";
const env = () => ({ ANTHROPIC_BASE_URL: standin.url, ANTHROPIC_API_KEY: `omptest_ant_${crypto.randomUUID().replaceAll("-", "")}` });

async function turn(rpc: RpcProcess, message: string): Promise<any> {
  const mark = rpc.mark;
  await rpc.send({ type: "prompt", message });
  return rpc.waitFrame((f) => f.type === "agent_end", mark);
}

describe("rpc hosts", () => {
  test("--approval-mode write asks the host: Allow runs the command, an edit's request carries its diff, Always allow stops asking, Deny ends the turn", async () => {
    const { home, repo } = workspace();
    writeFileSync(join(repo, "notes.txt"), "keep\nold line\n");
    standin.setScript([
      { toolCalls: [{ name: "bash", arguments: { command: "echo approved > approved.txt" } }] },
      { toolCalls: [{ name: "edit", arguments: { path: "notes.txt", edits: [{ oldText: "old line", newText: "new line" }] } }] },
      { toolCalls: [{ name: "edit", arguments: { path: "notes.txt", edits: [{ oldText: "keep", newText: "kept" }] } }] },
      { text: "done" },
      { toolCalls: [{ name: "bash", arguments: { command: "echo denied > denied.txt" } }] },
      { text: "NOT-ASKED-AFTER-DENY" },
    ]);
    const rpc = new RpcProcess(["--model", MODEL, "--approval-mode", "write"], { home, cwd: repo, env: env() });
    try {
      await rpc.waitFrame((f) => f.type === "ready");
      const mark = rpc.mark;
      await rpc.send({ type: "prompt", message: "make files" });
      const answer = async (from: number, value: string) => {
        const request = await rpc.waitFrame((f) => f.type === "extension_ui_request", from);
        // bash is remembered by command prefix, never as a whole (issue 21).
        expect(request).toMatchObject({ method: "select", options: ["Allow", request.toolName === "bash" ? 'Always allow bash commands starting with "echo"' : `Always allow ${request.toolName}`, "Deny"] });
        rpc.writeLine(JSON.stringify({ type: "extension_ui_response", id: request.id, value }));
        return request;
      };
      const first = await answer(mark, "Allow");
      expect(first).toMatchObject({ toolName: "bash", message: "echo approved > approved.txt" });
      const edit = await answer(rpc.mark, "Always allow edit");
      expect(edit.id).not.toBe(first.id);
      // The exact change: the whole file before and after, and the diff in the message a host shows.
      expect(edit.changes).toEqual([
        expect.objectContaining({ path: join(repo, "notes.txt"), op: "update", oldText: "keep\nold line\n", newText: "keep\nnew line\n", added: 1, removed: 1 }),
      ]);
      expect(edit.message).toContain("-old line\n+new line");
      const end = await rpc.waitFrame((f) => f.type === "agent_end", mark);
      expect(end.stopReason).toBe("stop");
      expect(readFileSync(join(repo, "notes.txt"), "utf8")).toBe("kept\nnew line\n");
      // Deny: the call is not run and the turn ends; the model is not asked again until the user speaks.
      const second = rpc.mark;
      await rpc.send({ type: "prompt", message: "one more" });
      await answer(second, "Deny");
      const denied = await rpc.waitFrame((f) => f.type === "agent_end", second);
      expect(denied.stopReason).toBe("denied");
      // An answer to an unknown question is ignored.
      rpc.writeLine(JSON.stringify({ type: "extension_ui_response", id: "ui_999", confirmed: true }));
      expect((await rpc.send({ type: "get_state" })).success).toBe(true);
      expect(rpc.frames.filter((f) => f.type === "extension_ui_request")).toHaveLength(3);
      expect(await rpc.close()).toBe(0);
    } finally {
      rpc.child.kill();
    }
    expect(readFileSync(join(repo, "approved.txt"), "utf8")).toBe("approved\n");
    expect(existsSync(join(repo, "denied.txt"))).toBe(false);
    // No request carried the denial back to the model.
    expect(modelRequests(standin).some((request) => JSON.stringify(request.body).includes("The user denied this bash call"))).toBe(false);
  });

  test("a write over a big file asks with the call's summary only: the preview's texts are bounded, not the file twice", async () => {
    const { home, repo } = workspace();
    writeFileSync(join(repo, "big.txt"), "x".repeat(3 * 1024 * 1024));
    standin.setScript([{ toolCalls: [{ name: "write", arguments: { path: "big.txt", content: "small now\n" } }] }, { text: "done" }]);
    const rpc = new RpcProcess(["--model", MODEL, "--approval-mode", "write"], { home, cwd: repo, env: env() });
    try {
      await rpc.waitFrame((f) => f.type === "ready");
      const mark = rpc.mark;
      await rpc.send({ type: "prompt", message: "shrink it" });
      const request = await rpc.waitFrame((f) => f.type === "extension_ui_request", mark);
      expect(request.changes).toBeUndefined();
      expect(JSON.stringify(request).length).toBeLessThan(64 * 1024);
      rpc.writeLine(JSON.stringify({ type: "extension_ui_response", id: request.id, value: "Allow" }));
      await rpc.waitFrame((f) => f.type === "agent_end", mark);
      expect(await rpc.close()).toBe(0);
    } finally {
      rpc.child.kill();
    }
    expect(readFileSync(join(repo, "big.txt"), "utf8")).toBe("small now\n");
  });

  test("a connection reset mid-answer is sent again: the text deltas add up to the answer once", async () => {
    const { home, repo } = workspace();
    const answer = "Alpha beta gamma delta epsilon zeta eta theta iota kappa lambda.";
    standin.setScript([{ text: answer, cutAfterEvents: 5, cutMode: "reset" }, { text: answer }]);
    const rpc = new RpcProcess(["--model", MODEL], { home, cwd: repo, env: env() });
    try {
      await rpc.waitFrame((f) => f.type === "ready");
      const mark = rpc.mark;
      const end = await turn(rpc, "greek letters");
      expect(end.stopReason).toBe("stop");
      const frames = rpc.frames.slice(mark);
      expect(frames.some((f) => f.type === "auto_retry_start")).toBe(true);
      const deltas = frames.filter((f) => f.type === "message_update" && f.assistantMessageEvent.type === "text_delta").map((f) => f.assistantMessageEvent.delta);
      expect(deltas.join("")).toBe(answer);
      expect(await rpc.close()).toBe(0);
    } finally {
      rpc.child.kill();
    }
  });

  test("set_session_name names the session in listings; export_html after a compaction has the whole conversation; branch goes back", async () => {
    const { home, repo } = workspace();
    mkdirSync(join(home, ".omp", "agent"), { recursive: true });
    writeFileSync(join(home, ".omp", "agent", "config.yml"), "compaction:\n  keepRecentTokens: 5\n");
    standin.setScript([{ text: "FIRST-ANSWER" }, { text: "SECOND-ANSWER" }, { text: "SUMMARY" }, { text: "THIRD-ANSWER" }, { text: "BRANCHED-ANSWER" }]);
    const rpc = new RpcProcess(["--model", MODEL], { home, cwd: repo, env: env() });
    try {
      await rpc.waitFrame((f) => f.type === "ready");
      expect((await rpc.send({ type: "set_session_name", name: "  " })).error).toBe("Session name cannot be empty");
      await turn(rpc, "first question");
      expect((await rpc.send({ type: "set_session_name", name: "Refactor the parser" })).success).toBe(true);
      await turn(rpc, "second question");
      expect((await rpc.send({ type: "compact" })).data.compacted).toBe(true);
      await turn(rpc, "third question");
      const exported = await rpc.send({ type: "export_html", outputPath: "out.html" });
      expect(exported.success).toBe(true);
      const html = readFileSync(join(repo, "out.html"), "utf8");
      for (const text of ["first question", "FIRST-ANSWER", "SECOND-ANSWER", "THIRD-ANSWER"]) expect(html).toContain(text);

      const file = (await rpc.send({ type: "get_state" })).data.sessionFile;
      const entries = readJsonl(file);
      const userEntry = (text: string) => entries.find((e) => e.type === "message" && e.message.role === "user" && JSON.stringify(e.message.content).includes(text));
      const firstAnswer = entries.find((e) => e.type === "message" && e.message.role === "assistant");
      // As the original: only a user message is a branch point; the branch starts just before it and its text comes back.
      expect((await rpc.send({ type: "branch", entryId: firstAnswer.id })).error).toContain("Invalid entry ID for branching");
      const branched = await rpc.send({ type: "branch", entryId: userEntry("second question").id });
      expect(branched).toMatchObject({ success: true, data: { text: "second question", cancelled: false, messageCount: 2 } });
      await turn(rpc, "another way");
      const sent = JSON.stringify(modelRequests(standin).at(-1)!.body.messages);
      expect(sent).toContain("FIRST-ANSWER");
      expect(sent).not.toContain("SECOND-ANSWER");
      expect(sent).not.toContain("second question");
      const fromStart = await rpc.send({ type: "branch", entryId: userEntry("first question").id });
      expect(fromStart).toMatchObject({ success: true, data: { text: "first question", messageCount: 0 } });
      expect((await rpc.send({ type: "get_messages" })).data.messages).toEqual([]);
      expect((await rpc.send({ type: "branch", entryId: "nope" })).success).toBe(false);
      expect(await rpc.close()).toBe(0);
    } finally {
      rpc.child.kill();
    }
    const listed = await runAgent(["-r"], { home, cwd: repo, env: env() });
    expect(listed.stdout).toContain("Refactor the parser");
    expect(sessionFiles(home)).toHaveLength(1);
  });

  test("cycle_model moves to the next model with a key and adjusts thinking; cycle_thinking_level steps through the levels", async () => {
    const { home, repo } = workspace();
    const rpc = new RpcProcess(["--model", "anthropic/claude-haiku-4-5", "--thinking", "low"], { home, cwd: repo, env: env() });
    try {
      await rpc.waitFrame((f) => f.type === "ready");
      expect((await rpc.send({ type: "cycle_thinking_level" })).data).toEqual({ level: "medium" });
      const cycled = await rpc.send({ type: "cycle_model" });
      expect(cycled.success).toBe(true);
      expect(cycled.data.model.provider).toBe("anthropic");
      expect(cycled.data.model.id).not.toBe("claude-haiku-4-5");
      expect((await rpc.send({ type: "get_state" })).data.model.id).toBe(cycled.data.model.id);
      expect(await rpc.close()).toBe(0);
    } finally {
      rpc.child.kill();
    }
  });
});
