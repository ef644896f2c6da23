// Writes the sandbox policy guards ask in the default approval mode over rpc and ACP, and an
// answer means what it says (issue 36 item 7): only an explicit allow option runs the call; a
// "Deny" with confirmed: true, a bare confirmed: true, unknown text, an unknown ACP option and a
// cancellation all deny. Ordinary work in the project asks nothing.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { agentTestFile, workspace } from "../support/agent-harness.ts";
import { AcpClient } from "../support/acp-client.ts";
import { RpcProcess } from "../support/agent-rpc.ts";

const standin = await agentTestFile();
const MODEL = "anthropic/claude-opus-5-5";
const env = () => ({ ANTHROPIC_BASE_URL: standin.url, ANTHROPIC_API_KEY: `omptest_ant_${crypto.randomUUID().replaceAll("-", "")}` });

const write = (path: string, content: string) => ({ toolCalls: [{ name: "write", arguments: { path, content } }] });

describe("rpc, default approval mode", () => {
  test("a write to ~/.bashrc asks showing the path; Deny+confirmed, bare confirmed, unknown text and cancel deny; Allow writes; project files ask nothing", async () => {
    const { home, repo } = workspace();
    const bashrc = join(home, ".bashrc");
    writeFileSync(bashrc, "# the user's\n");
    standin.setScript([
      write("inside.txt", "ordinary work"),
      write("~/.bashrc", "evil 1\n"),
      write("~/.bashrc", "evil 2\n"),
      write("~/.bashrc", "evil 3\n"),
      write("~/.bashrc", "evil 4\n"),
      write(".git/config", "[core]\n\tfsmonitor = evil\n"),
      write("~/.bashrc", "# allowed\n"),
      { text: "done" },
    ]);
    const rpc = new RpcProcess(["--model", MODEL], { home, cwd: repo, env: env() });
    try {
      await rpc.waitFrame((f) => f.type === "ready");
      const mark = rpc.mark;
      await rpc.send({ type: "prompt", message: "work" });
      const answers: Record<string, unknown>[] = [{ value: "Deny", confirmed: true }, { confirmed: true }, { value: "Yes, go ahead" }, { cancelled: true }, { value: "Deny" }, { value: "Allow" }];
      const asked: any[] = [];
      const ends: any[] = [];
      let from = mark;
      for (const answer of answers) {
        // A plain no ends the turn (the user has the wheel): the user then says to go on.
        const next = await rpc.waitFrame((f) => f.type === "extension_ui_request" || f.type === "agent_end", from);
        let request = next;
        if (next.type === "agent_end") {
          ends.push(next);
          from = rpc.mark;
          await rpc.send({ type: "prompt", message: "go on" });
          request = await rpc.waitFrame((f) => f.type === "extension_ui_request", from);
        }
        asked.push(request);
        from = rpc.mark;
        rpc.writeLine(JSON.stringify({ type: "extension_ui_response", id: request.id, ...answer }));
      }
      await rpc.waitFrame((f) => f.type === "agent_end", from);
      // Deny, a bare confirmed, a cancellation and Deny again each ended a turn; the words did not.
      expect(ends.map((f) => f.stopReason)).toEqual(["denied", "denied", "denied", "denied"]);
      expect(asked.map((r) => r.toolName)).toEqual(["write", "write", "write", "write", "write", "write"]);
      expect(asked[0].message).toContain(bashrc);
      expect(asked[0].message).toContain("outside the sandbox's writable roots");
      expect(asked[4].message).toContain("protected path");
      expect(asked[0].options).toEqual(["Allow", `Always allow write of ${bashrc}`, "Deny"]);
      expect(await rpc.close()).toBe(0);
    } finally {
      rpc.child.kill();
    }
    expect(readFileSync(join(repo, "inside.txt"), "utf8")).toBe("ordinary work");
    expect(readFileSync(join(repo, ".git", "config"), "utf8")).not.toContain("fsmonitor");
    expect(readFileSync(bashrc, "utf8")).toBe("# allowed\n");
  });
});

describe("ACP, default approval mode", () => {
  test("the write asks through session/request_permission; an unknown option and a cancellation deny, allow writes", async () => {
    const { home, repo } = workspace();
    const bashrc = join(home, ".bashrc");
    writeFileSync(bashrc, "# the user's\n");
    standin.setScript([write("inside.txt", "ordinary work"), write("~/.bashrc", "evil 1\n"), write("~/.bashrc", "evil 2\n"), write("~/.bashrc", "# allowed\n"), { text: "done" }]);
    const c = new AcpClient({ home, cwd: repo, env: env(), args: ["acp", "--model", MODEL], editor: true });
    try {
      await c.initialize();
      const { sessionId } = await c.newSession(repo);
      // omp acp asks for every write by default (the project's too); an empty answer list makes the
      // client cancel, which ends the turn; the user goes on.
      c.answers = ["allow", "allow_everything", ""];
      expect((await c.prompt(sessionId, "work")).stopReason).toBe("end_turn");
      expect(c.permissions.map((p) => p.toolCall.title)).toEqual(["Write inside.txt", "Write ~/.bashrc", "Write ~/.bashrc"]);
      c.answers = ["allow"];
      expect((await c.prompt(sessionId, "go on")).stopReason).toBe("end_turn");
      expect(c.permissions).toHaveLength(4);
      expect(JSON.stringify(c.permissions[1]!.toolCall.rawInput)).toContain(".bashrc");
      expect(c.editorCalls).toContain(`write ${join(repo, "inside.txt")}`);
    } finally {
      await c.close();
    }
    expect(readFileSync(join(repo, "inside.txt"), "utf8")).toBe("ordinary work");
    expect(readFileSync(bashrc, "utf8")).toBe("# allowed\n");
    expect(existsSync(join(repo, ".git", "config"))).toBe(true);
  });
});
