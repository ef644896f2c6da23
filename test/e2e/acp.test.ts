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
      c.answers = ["allow_always"];
      expect((await c.prompt(sessionId, "tidy the notes")).stopReason).toBe("end_turn");
      expect(c.permissions.map((p) => p.toolCall.title)).toEqual([
        `web_fetch wants to send a GET request for ${url("/a?k=secret")} to 127.0.0.1, a loopback address (127.0.0.1), a host you have not named`,
      ]);
      expect(seen).toEqual(["/a", "/b"]);
      expect(JSON.parse(readFileSync(join(home, ".omp", "agent", "egress-hosts.json"), "utf8")).projects).toEqual({ [realpathSync(repo)]: ["127.0.0.1"] });
    } finally {
      await c.close();
      server.stop(true);
    }
  });

  test("approvals: allow runs the command in the editor's terminal, reject tells the model; edits go through fs/write_text_file with a diff", async () => {
    const { home, repo } = workspace();
    standin.setScript([
      { toolCalls: [{ name: "bash", arguments: { command: "echo from-terminal > t.txt; echo printed" } }] },
      { toolCalls: [{ name: "bash", arguments: { command: "echo refused > r.txt" } }] },
      { toolCalls: [{ name: "edit", arguments: { path: "README.md", edits: [{ oldText: "# demo", newText: "# edited demo" }] } }] },
      { text: "done" },
    ]);
    const c = client(home, repo, ["--approval-mode", "write"]);
    try {
      await c.initialize();
      const { sessionId } = await c.newSession(repo);
      // The editor's unsaved buffer is what the model edits.
      c.buffers.set(join(repo, "README.md"), "# demo\nunsaved line\n");
      c.answers = ["allow", "reject", "allow_always"];
      const result = await c.prompt(sessionId, "work");
      expect(result.stopReason).toBe("end_turn");
      expect(c.permissions.map((p) => p.toolCall.title)).toEqual(["echo from-terminal > t.txt; echo printed", "echo refused > r.txt", "Edit README.md"]);
      expect(c.permissions[0]!.options.map((o) => o.kind)).toEqual(["allow_once", "allow_always", "reject_once"]);
      expect(readFileSync(join(repo, "t.txt"), "utf8")).toBe("from-terminal\n");
      expect(existsSync(join(repo, "r.txt"))).toBe(false);
      expect(c.editorCalls).toContain(`terminal bash -c exec 2>&1\necho from-terminal > t.txt; echo printed`);
      expect(c.editorCalls.some((call) => call.startsWith("release "))).toBe(true);
      expect(c.editorCalls).toContain(`write ${join(repo, "README.md")}`);
      expect(readFileSync(join(repo, "README.md"), "utf8")).toBe("# edited demo\nunsaved line\n");
      const calls = c.updatesOf("tool_call");
      expect(calls.map((u) => u.kind)).toEqual(["execute", "execute", "edit"]);
      expect(calls[2]!.content).toEqual([{ type: "diff", path: join(repo, "README.md"), oldText: "# demo", newText: "# edited demo" }]);
      const updates = c.updatesOf("tool_call_update");
      expect(updates.some((u) => u.content?.some((part) => part.type === "terminal"))).toBe(true);
      expect(updates.filter((u) => u.status === "failed").map((u) => u.toolCallId)).toEqual([calls[1]!.toolCallId]);
      const last = standin.requests.at(-1)!.body as { messages: { content: { type: string; content?: unknown }[] }[] };
      const results = JSON.stringify(last.messages);
      expect(results).toContain("printed");
      expect(results).toContain("The user denied this bash call.");
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
      const first = JSON.stringify(standin.requests.at(-2)!.body);
      expect(first).toContain("mcp__everything__echo");
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
  test("acpx exec streams the answer and approves a command with --approve-all", async () => {
    const { home, repo } = workspace();
    standin.setScript([{ toolCalls: [{ name: "bash", arguments: { command: "echo acpx-ran > acpx.txt" } }] }, { text: "acpx answer" }]);
    const key = `omptest_ant_${crypto.randomUUID().replaceAll("-", "")}`;
    const agent = `${OMP} acp --model ${MODEL} --approval-mode write`;
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
});
