// `omp acp` on the compiled binary, driven by the ACP SDK's own client side and by acpx, against
// the provider stand-in: streaming, permissions, the editor's files and terminal, cancel, load,
// client MCP servers, modes and slash commands.
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { agentTestFile, workspace } from "../support/agent-harness.ts";
import { AcpClient } from "../support/acp-client.ts";
import { EVERYTHING } from "../support/mcp/fixtures.ts";
import { OMP, ROOT, cleanEnv } from "../support/omp.ts";
import { agentEnv } from "../support/agent-harness.ts";

const standin = await agentTestFile();
const MODEL = "anthropic/claude-opus-5-5";
const env = () => ({ ANTHROPIC_BASE_URL: standin.url, ANTHROPIC_API_KEY: `omptest_ant_${crypto.randomUUID().replaceAll("-", "")}` });

function client(home: string, repo: string, args: string[] = []): AcpClient {
  return new AcpClient({ home, cwd: repo, env: env(), args: ["acp", "--model", MODEL, ...args], editor: true });
}

describe("omp acp with the SDK's client", () => {
  test("initialize advertises omp's capabilities; a prompt streams text chunks and ends with end_turn; slash commands and modes are listed", async () => {
    const { home, repo } = workspace();
    mkdirSync(join(repo, ".omp", "commands"), { recursive: true });
    writeFileSync(join(repo, ".omp", "commands", "review.md"), "---\ndescription: review a file\n---\nReview $ARGUMENTS carefully.\n");
    standin.setScript([{ text: "Hello from the stand-in, streamed in pieces." }]);
    const c = client(home, repo, ["--trust"]);
    try {
      const init = await c.initialize();
      expect(init.agentCapabilities).toMatchObject({ loadSession: true, promptCapabilities: { image: true, embeddedContext: true }, mcpCapabilities: { http: true, sse: true } });
      expect(init.agentInfo?.name).toBe("omp");
      const session = await c.newSession(repo);
      expect(session.modes?.availableModes.map((m) => m.id)).toEqual(["default", "plan", "auto-accept"]);
      expect(session.configOptions?.[0]).toMatchObject({ id: "model", currentValue: MODEL });
      const result = await c.prompt(session.sessionId, "say hello");
      expect(result.stopReason).toBe("end_turn");
      expect(c.updatesOf("agent_message_chunk").length).toBeGreaterThan(1);
      expect(c.text()).toBe("Hello from the stand-in, streamed in pieces.");
      await c.until(() => c.updatesOf("available_commands_update").length > 0);
      const commands = c.updatesOf("available_commands_update")[0]!.availableCommands;
      expect(commands.find((cmd) => cmd.name === "review")).toMatchObject({ description: "review a file" });
      // omp's own commands that make sense in an editor are listed and work.
      expect(commands.find((cmd) => cmd.name === "compact")).toMatchObject({ description: expect.stringContaining("free context") });
      const from = c.updates.length;
      expect((await c.prompt(session.sessionId, "/compact")).stopReason).toBe("end_turn");
      expect(c.text(from)).toMatch(/Nothing to compact yet|Compacted the conversation/);
    } finally {
      await c.close();
    }
  });

  test("egress: a fetch from a host the prompt did not name asks the editor, showing the host and the URL; allow_always holds for the project", async () => {
    const { home, repo } = workspace();
    const seen: string[] = [];
    const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (request) => (seen.push(new URL(request.url).pathname), new Response("notes page", { headers: { "content-type": "text/plain" } })) });
    const url = (path: string) => `http://127.0.0.1:${server.port}${path}`;
    standin.setScript([
      { toolCalls: [{ name: "web_fetch", arguments: { url: url("/a?k=secret") } }] },
      { toolCalls: [{ name: "web_fetch", arguments: { url: url("/b") } }] },
      { text: "done" },
    ]);
    const c = client(home, repo);
    try {
      await c.initialize();
      const { sessionId } = await c.newSession(repo);
      // omp acp asks for network calls by default (write mode), then about a private host the prompt did not name.
      c.answers = ["allow_always", "allow_always"];
      expect((await c.prompt(sessionId, "tidy the notes")).stopReason).toBe("end_turn");
      expect(c.permissions.map((p) => p.toolCall.title)).toEqual([
        `Fetch ${url("/a?k=secret")}`,
        `web_fetch wants to send a GET request for ${url("/a?k=secret")} to 127.0.0.1, a loopback address (127.0.0.1), a host you have not named`,
      ]);
      expect(seen).toEqual(["/a", "/b"]);
      expect(JSON.parse(readFileSync(join(home, ".omp", "agent", "egress-hosts.json"), "utf8")).projects).toEqual({ [realpathSync(repo)]: ["127.0.0.1"] });
    } finally {
      await c.close();
      server.stop(true);
    }
  });

  test("approvals by default: allow runs the command in the editor's terminal, an edit's request carries its diff, reject ends the turn", async () => {
    const { home, repo } = workspace();
    standin.setScript([
      { toolCalls: [{ name: "bash", arguments: { command: "echo from-terminal > t.txt; echo printed" } }] },
      { toolCalls: [{ name: "edit", arguments: { path: "README.md", edits: [{ oldText: "# demo", newText: "# edited demo" }] } }] },
      { text: "done" },
      { toolCalls: [{ name: "bash", arguments: { command: "echo refused > r.txt" } }] },
      { text: "NOT-ASKED-AFTER-REJECT" },
    ]);
    // No --approval-mode: an editor is asked before edits and commands, as with every peer's adapter.
    const c = client(home, repo);
    try {
      await c.initialize();
      const { sessionId } = await c.newSession(repo);
      // The editor's unsaved buffer is what the model edits.
      c.buffers.set(join(repo, "README.md"), "# demo\nunsaved line\n");
      c.answers = ["allow", "allow_always"];
      const result = await c.prompt(sessionId, "work");
      expect(result.stopReason).toBe("end_turn");
      expect(c.permissions.map((p) => p.toolCall.title)).toEqual(["echo from-terminal > t.txt; echo printed", "Edit README.md"]);
      expect(c.permissions[0]!.options.map((o) => o.kind)).toEqual(["allow_once", "allow_always", "reject_once"]);
      // The permission request shows the exact change: the whole buffer before and after.
      expect(c.permissions[1]!.toolCall.content).toEqual([{ type: "diff", path: join(repo, "README.md"), oldText: "# demo\nunsaved line\n", newText: "# edited demo\nunsaved line\n" }]);
      expect(readFileSync(join(repo, "t.txt"), "utf8")).toBe("from-terminal\n");
      expect(c.editorCalls).toContain(`terminal bash -c exec 2>&1\necho from-terminal > t.txt; echo printed`);
      expect(c.editorCalls.some((call) => call.startsWith("release "))).toBe(true);
      expect(c.editorCalls).toContain(`write ${join(repo, "README.md")}`);
      expect(readFileSync(join(repo, "README.md"), "utf8")).toBe("# edited demo\nunsaved line\n");
      const calls = c.updatesOf("tool_call");
      expect(calls.map((u) => u.kind)).toEqual(["execute", "edit"]);
      expect(calls[1]!.content).toEqual([{ type: "diff", path: join(repo, "README.md"), oldText: "# demo", newText: "# edited demo" }]);
      const updates = c.updatesOf("tool_call_update");
      expect(updates.some((u) => u.content?.some((part) => part.type === "terminal"))).toBe(true);
      expect(JSON.stringify(standin.requests.at(-1)!.body)).toContain("printed");

      // Reject: not run, and the turn ends there; the model is not asked again until the user speaks.
      c.answers = ["reject"];
      const from = c.updates.length;
      const rejected = await c.prompt(sessionId, "one more");
      expect(rejected.stopReason).toBe("end_turn");
      expect(existsSync(join(repo, "r.txt"))).toBe(false);
      expect(c.text(from)).not.toContain("NOT-ASKED-AFTER-REJECT");
      const failed = c.updatesOf("tool_call_update", from).filter((u) => u.status === "failed");
      expect(failed).toHaveLength(1);
      expect(standin.requests.some((request) => JSON.stringify(request.body).includes("The user denied this bash call"))).toBe(false);
    } finally {
      await c.close();
    }
  });

  test("a connection reset mid-answer is sent again: the editor gets the answer once, whole", async () => {
    const { home, repo } = workspace();
    const answer = "Alpha beta gamma delta epsilon zeta eta theta iota kappa lambda.";
    standin.setScript([{ text: answer, cutAfterEvents: 5, cutMode: "reset" }, { text: answer }]);
    const c = client(home, repo);
    try {
      await c.initialize();
      const { sessionId } = await c.newSession(repo);
      expect((await c.prompt(sessionId, "greek letters")).stopReason).toBe("end_turn");
      expect(c.text()).toBe(answer);
      expect(c.updatesOf("agent_message_chunk").length).toBeGreaterThan(1);
    } finally {
      await c.close();
    }
  });

  test("session/cancel mid-stream ends the prompt with cancelled; session/load replays the session", async () => {
    const { home, repo } = workspace();
    standin.setScript([{ text: "first answer" }, { text: "a long answer that stalls", pauseAfterEvents: 4, pauseMs: 20_000 }]);
    const c = client(home, repo);
    let sessionId: string;
    try {
      await c.initialize();
      sessionId = (await c.newSession(repo)).sessionId;
      expect((await c.prompt(sessionId, "first")).stopReason).toBe("end_turn");
      const mark = c.updates.length;
      const running = c.prompt(sessionId, "second");
      await c.until(() => c.updatesOf("agent_message_chunk", mark).length > 0);
      await c.agent.notify("session/cancel", { sessionId });
      expect((await running).stopReason).toBe("cancelled");
    } finally {
      await c.close();
    }
    const again = client(home, repo);
    try {
      await again.initialize();
      await again.agent.request("session/load", { sessionId, cwd: repo, mcpServers: [] });
      expect(again.updatesOf("user_message_chunk").map((u) => (u.content.type === "text" ? u.content.text : ""))).toEqual(["first", "second"]);
      expect(again.text()).toContain("first answer");
    } finally {
      await again.close();
    }
  });

  test("plan mode refuses changes and says so; the mode switch is reported", async () => {
    const { home, repo } = workspace();
    standin.setScript([{ toolCalls: [{ name: "write", arguments: { path: "plan.txt", content: "x" } }] }, { text: "planned" }]);
    const c = client(home, repo, ["--approval-mode", "yolo"]);
    try {
      await c.initialize();
      const { sessionId } = await c.newSession(repo);
      await c.agent.request("session/set_mode", { sessionId, modeId: "plan" });
      await c.until(() => c.updatesOf("current_mode_update").length > 0);
      expect(c.updatesOf("current_mode_update")[0]!.currentModeId).toBe("plan");
      expect((await c.prompt(sessionId, "plan it")).stopReason).toBe("end_turn");
      expect(existsSync(join(repo, "plan.txt"))).toBe(false);
      expect(JSON.stringify(standin.requests.at(-1)!.body)).toContain("plan mode");
    } finally {
      await c.close();
    }
  });

  test("an MCP server passed by the client in session/new is used by the model", async () => {
    const { home, repo } = workspace();
    standin.setScript([{ toolCalls: [{ name: "mcp__everything__echo", arguments: { message: "via the client" } }] }, { text: "echoed" }]);
    const c = client(home, repo, ["--approval-mode", "yolo"]);
    try {
      await c.initialize();
      const { sessionId } = await c.newSession(repo, [{ name: "everything", command: "node", args: [EVERYTHING, "stdio"], env: [] }]);
      expect((await c.prompt(sessionId, "echo")).stopReason).toBe("end_turn");
      // server-everything's tools are deferred (search_tool_bm25 names the server); called by name, echo joins the list.
      const first = standin.requests.at(-2)!.body;
      expect(first.tools.find((t: any) => t.name === "search_tool_bm25").description).toMatch(/MCP server everything \(\d+ tools\)/);
      expect(standin.requests.at(-1)!.body.tools.at(-1).name).toBe("mcp__everything__echo");
      const update = c.updatesOf("tool_call_update").find((u) => u.status === "completed");
      expect(JSON.stringify(update?.content)).toContain("Echo: via the client");
    } finally {
      await c.close();
    }
  });
});

describe("omp acp: authentication, models and prompt content", () => {
  test("with no usable model, session/new asks for authentication and initialize lists how", async () => {
    const { home, repo } = workspace();
    const c = new AcpClient({ home, cwd: repo, env: {}, args: ["acp"] });
    try {
      const init = await c.initialize(false);
      expect(init.authMethods?.map((m) => m.id)).toEqual(["omp-login"]);
      const failed = await c.newSession(repo).then(
        () => undefined,
        (error: { code?: number; message?: string }) => error,
      );
      expect(failed?.code).toBe(-32000);
    } finally {
      await c.close();
    }
  });

  test("a prompt the provider refuses fails with its words and, in the error's data, the failure typed as rpc and json clients get it", async () => {
    const { home, repo } = workspace();
    standin.setScript([{ status: 401 }]);
    const c = client(home, repo);
    try {
      await c.initialize();
      const session = await c.newSession(repo);
      const failed = await c.prompt(session.sessionId, "hello").then(
        () => undefined,
        (error: { code?: number; message?: string; data?: { errorInfo?: { kind: string; message: string; retryable: boolean } } }) => error,
      );
      expect(failed?.code).toBe(-32603);
      expect(failed?.data?.errorInfo).toMatchObject({ kind: "auth", retryable: false });
      expect(failed?.message).toContain(failed!.data!.errorInfo!.message);
    } finally {
      await c.close();
    }
  });

  test("the model is a config option the client can set; images, resources and file links reach the model", async () => {
    const { home, repo } = workspace();
    writeFileSync(join(repo, "notes.txt"), "linked file body\n");
    standin.setScript([{ text: "seen" }]);
    const c = client(home, repo);
    try {
      await c.initialize();
      const session = await c.newSession(repo);
      const option = session.configOptions![0]!;
      const other = option.type === "select" ? (option.options as { value: string }[]).find((o) => o.value === "anthropic/claude-sonnet-5-5") : undefined;
      expect(other).toBeDefined();
      const set = await c.agent.request("session/set_config_option", { sessionId: session.sessionId, configId: "model", value: "anthropic/claude-sonnet-5-5" });
      expect((set as { configOptions: { currentValue: string }[] }).configOptions[0]!.currentValue).toBe("anthropic/claude-sonnet-5-5");
      const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
      const result = await c.agent.request("session/prompt", {
        sessionId: session.sessionId,
        prompt: [
          { type: "text", text: "look" },
          { type: "image", data: png, mimeType: "image/png" },
          { type: "resource", resource: { uri: "file:///tmp/buffer.ts", text: "embedded buffer text" } },
          { type: "resource_link", uri: `file://${join(repo, "notes.txt")}`, name: "notes.txt" },
        ],
      });
      expect((result as { stopReason: string }).stopReason).toBe("end_turn");
      const body = standin.requests.at(-1)!.body as { model: string };
      expect(body.model).toBe("claude-sonnet-5-5");
      const sent = JSON.stringify(body);
      expect(sent).toContain(png);
      expect(sent).toContain("embedded buffer text");
      expect(sent).toContain("linked file body");
    } finally {
      await c.close();
    }
  });
});

describe("omp acp: the command line", () => {
  test("--mode acp is omp acp; a bad --approval-mode is refused before the protocol starts", async () => {
    const { home, repo } = workspace();
    standin.setScript([{ text: "via --mode" }]);
    const c = new AcpClient({ home, cwd: repo, env: env(), args: ["--mode", "acp", "--model", MODEL] });
    try {
      await c.initialize(false);
      const { sessionId } = await c.newSession(repo);
      expect((await c.prompt(sessionId, "hi")).stopReason).toBe("end_turn");
      expect(c.text()).toBe("via --mode");
    } finally {
      await c.close();
    }
    const bad = Bun.spawnSync([OMP, "acp", "--approval-mode", "sometimes"], { cwd: repo, env: cleanEnv(home), stdin: "ignore" });
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr.toString()).toContain("Valid modes: always-ask, write, yolo");
  });
});

describe("omp acp with acpx", () => {
  test("acpx exec streams the answer and is asked for a command by default (--approve-all approves it)", async () => {
    const { home, repo } = workspace();
    standin.setScript([{ toolCalls: [{ name: "bash", arguments: { command: "echo acpx-ran > acpx.txt" } }] }, { text: "acpx answer" }]);
    const key = `omptest_ant_${crypto.randomUUID().replaceAll("-", "")}`;
    const agent = `${OMP} acp --model ${MODEL}`;
    const child = Bun.spawn([join(ROOT, "node_modules", ".bin", "acpx"), "--format", "json", "--approve-all", "--timeout", "60", "--ttl", "1", "--agent", agent, "exec", "make the file"], {
      cwd: repo,
      env: cleanEnv(home, agentEnv({ ANTHROPIC_BASE_URL: standin.url, ANTHROPIC_API_KEY: key })),
      stdout: "pipe",
      stderr: "pipe",
    });
    const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
    expect({ code, stderr: code === 0 ? "" : stderr }).toEqual({ code: 0, stderr: "" });
    expect(stdout).toContain("session/request_permission");
    expect(stdout).toContain("agent_message_chunk");
    expect(stdout).toContain('"stopReason":"end_turn"');
    expect(readFileSync(join(repo, "acpx.txt"), "utf8")).toBe("acpx-ran\n");
  });

  test("a write the editor refuses (acpx without --approve-all) reaches the model as denied by the user, not an internal error", async () => {
    const { home, repo } = workspace();
    standin.setScript([{ toolCalls: [{ name: "write", arguments: { path: "new.txt", content: "hello\n" } }] }, { text: "acpx answer" }]);
    const key = `omptest_ant_${crypto.randomUUID().replaceAll("-", "")}`;
    // yolo: omp writes without asking, through the editor, which refuses (acpx approves reads only when nobody can be asked).
    const agent = `${OMP} acp --model ${MODEL} --approval-mode yolo`;
    const child = Bun.spawn([join(ROOT, "node_modules", ".bin", "acpx"), "--format", "json", "--approve-reads", "--non-interactive-permissions", "deny", "--timeout", "60", "--ttl", "1", "--agent", agent, "exec", "write the file"], {
      cwd: repo,
      env: cleanEnv(home, agentEnv({ ANTHROPIC_BASE_URL: standin.url, ANTHROPIC_API_KEY: key })),
      stdout: "pipe",
      stderr: "pipe",
    });
    const [stdout] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
    // acpx reports the refusal with its own exit status; the turn itself ended normally.
    expect(stdout).toContain('"stopReason":"end_turn"');
    expect(existsSync(join(repo, "new.txt"))).toBe(false);
    const result = JSON.stringify(standin.requests.at(-1)!.body);
    expect(result).toContain("new.txt was not written: the editor refused to write it");
    expect(result).toContain("denied by the user");
    expect(result).not.toContain("write failed: Internal error");
  });
});
