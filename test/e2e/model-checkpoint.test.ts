// The model's checkpoint and rewind tools in the compiled omp: files omp changed after the
// checkpoint (by write, edit and a command in a git repository) go back, the conversation is cut
// back to the checkpoint with the report kept, and under --approval-mode write the rewind asks
// with the files that change.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { agentTestFile, modelRequests, runAgent, toolCallsOf, toolResultsOf, workspace } from "../support/agent-harness.ts";
import { RpcProcess } from "../support/agent-rpc.ts";

const standin = await agentTestFile();
const MODEL = "anthropic/claude-sonnet-4-5";
const env = { ANTHROPIC_BASE_URL: standin.url, ANTHROPIC_API_KEY: "sk-ant-test" };

describe("checkpoint and rewind", () => {
  test("files changed after the checkpoint go back; the next request holds the checkpoint and the report, not the attempt", async () => {
    const ws = workspace({ "keep.txt": "before checkpoint\n", "app.txt": "v1\n" });
    standin.setScript([
      { toolCalls: [{ name: "write", arguments: { path: "keep.txt", content: "changed before the checkpoint\n" } }] },
      { toolCalls: [{ name: "checkpoint", arguments: { goal: "try a risky rewrite" } }] },
      {
        toolCalls: [
          { name: "edit", arguments: { path: "app.txt", edits: [{ oldText: "v1", newText: "v2-risky" }] } },
          { name: "write", arguments: { path: "new.txt", content: "made in the attempt\n" } },
          { name: "bash", arguments: { command: "printf 'by a command\\n' > cmd.txt && rm keep.txt" } },
        ],
      },
      { toolCalls: [{ name: "checkpoint", arguments: { goal: "nested" } }] },
      { toolCalls: [{ name: "rewind", arguments: { report: "The rewrite breaks v1 callers; keep v1." } }] },
      { toolCalls: [{ name: "rewind", arguments: { report: "again" } }] },
      { text: "done" },
    ]);
    standin.requests.length = 0;
    const run = await runAgent(["-p", "--model", MODEL, "try it"], { home: ws.home, cwd: ws.repo, env });
    expect(run.code).toBe(0);
    expect(readFileSync(join(ws.repo, "app.txt"), "utf8")).toBe("v1\n");
    expect(existsSync(join(ws.repo, "new.txt"))).toBe(false);
    expect(existsSync(join(ws.repo, "cmd.txt"))).toBe(false);
    // Changed before the checkpoint: stays as the model left it then.
    expect(readFileSync(join(ws.repo, "keep.txt"), "utf8")).toBe("changed before the checkpoint\n");
    const requests = modelRequests(standin);
    const [checkpoint] = toolResultsOf("anthropic-messages", requests[2]!.body).slice(-1);
    expect(checkpoint!.text).toBe("Checkpoint created.\nGoal: try a risky rewrite\nRun your investigation, then call rewind with a concise report.");
    const [nested] = toolResultsOf("anthropic-messages", requests[4]!.body).slice(-1);
    expect(nested).toMatchObject({ text: "Checkpoint already active.", isError: true });
    // After the rewind: the attempt's calls are gone, the report is there.
    const after = requests[5]!.body;
    const callNames = toolCallsOf("anthropic-messages", after).map((call) => call.name);
    expect(callNames).toEqual(["write", "checkpoint"]);
    const text = JSON.stringify(after.messages);
    expect(text).toContain("The rewrite breaks v1 callers; keep v1.");
    expect(text).not.toContain("v2-risky");
    const [again] = toolResultsOf("anthropic-messages", requests[6]!.body).slice(-1);
    expect(again).toMatchObject({ text: "No active checkpoint.", isError: true });
    // The session's branch moved too: continuing it sends the cut conversation, report included.
    standin.setScript([{ text: "resumed" }]);
    standin.requests.length = 0;
    expect((await runAgent(["-c", "-p", "--model", MODEL, "next"], { home: ws.home, cwd: ws.repo, env })).code).toBe(0);
    const resumed = JSON.stringify(modelRequests(standin)[0]!.body.messages);
    expect(resumed).toContain("The rewrite breaks v1 callers; keep v1.");
    expect(resumed).not.toContain("v2-risky");
  });

  test("under --approval-mode write the rewind asks with the files it puts back; Deny leaves them", async () => {
    const ws = workspace({ "app.txt": "v1\n" });
    standin.setScript([
      { toolCalls: [{ name: "checkpoint", arguments: { goal: "g" } }] },
      { toolCalls: [{ name: "write", arguments: { path: "app.txt", content: "v2\n" } }, { name: "write", arguments: { path: "extra.txt", content: "x\n" } }] },
      { toolCalls: [{ name: "rewind", arguments: { report: "no good" } }] },
      { toolCalls: [{ name: "rewind", arguments: { report: "no good" } }] },
      { text: "done" },
    ]);
    const rpc = new RpcProcess(["--model", MODEL, "--approval-mode", "write"], { home: ws.home, cwd: ws.repo, env });
    try {
      await rpc.waitFrame((f) => f.type === "ready");
      let mark = rpc.mark;
      await rpc.send({ type: "prompt", message: "go" });
      for (const _ of [1, 2]) {
        const write = await rpc.waitFrame((f) => f.type === "extension_ui_request" && f.toolName === "write", mark);
        mark = rpc.mark;
        rpc.writeLine(JSON.stringify({ type: "extension_ui_response", id: write.id, value: "Allow" }));
      }
      const denied = await rpc.waitFrame((f) => f.type === "extension_ui_request" && f.toolName === "rewind", mark);
      const byPath = Object.fromEntries(denied.changes.map((change: any) => [change.shown, change]));
      expect(byPath["app.txt"]).toMatchObject({ op: "update", oldText: "v2\n", newText: "v1\n" });
      expect(byPath["extra.txt"]).toMatchObject({ op: "delete", oldText: "x\n", newText: null });
      rpc.writeLine(JSON.stringify({ type: "extension_ui_response", id: denied.id, value: "Deny" }));
      await rpc.waitFrame((f) => f.type === "agent_end", mark);
      expect(readFileSync(join(ws.repo, "app.txt"), "utf8")).toBe("v2\n");
      mark = rpc.mark;
      await rpc.send({ type: "prompt", message: "rewind now" });
      const allowed = await rpc.waitFrame((f) => f.type === "extension_ui_request" && f.toolName === "rewind", mark);
      rpc.writeLine(JSON.stringify({ type: "extension_ui_response", id: allowed.id, value: "Allow" }));
      await rpc.waitFrame((f) => f.type === "agent_end", mark);
      expect(await rpc.close()).toBe(0);
    } finally {
      rpc.child.kill();
    }
    expect(readFileSync(join(ws.repo, "app.txt"), "utf8")).toBe("v1\n");
    expect(existsSync(join(ws.repo, "extra.txt"))).toBe(false);
  });
});
