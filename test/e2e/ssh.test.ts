// The ssh tool and `omp ssh add|list|remove` in the compiled omp: commands run on a private sshd on
// loopback through the system ssh client, which applies the user's ssh_config (a Host alias with
// its HostName, Port, User and IdentityFile); every call asks, whatever the approval mode, showing
// the host and the command; the private key never reaches the model, the session or stdout.
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { agentTestFile, deferredToolNamesOf, filesContaining, modelRequests, runAgent, sessionFiles, toolNamesOf, toolResultsOf, workspace } from "../support/agent-harness.ts";
import { RpcProcess } from "../support/agent-rpc.ts";
import { runOmp } from "../support/omp.ts";
import { type PrivateSshd, sshUnavailable, startSshd } from "../support/sshd.ts";

const standin = await agentTestFile();
const MODEL = "anthropic/claude-sonnet-4-5";
const env = { ANTHROPIC_BASE_URL: standin.url, ANTHROPIC_API_KEY: "sk-ant-test" };
const unavailable = sshUnavailable();

describe("omp ssh add|list|remove", () => {
  test("a host round-trips through the original's ssh.json; bad input is refused with what to do, and nothing is lost", async () => {
    const { home, repo } = workspace();
    const run = (...args: string[]) => runOmp(["ssh", ...args], { home, cwd: repo });

    expect((await run("list")).stdout).toContain("No SSH hosts configured");
    const added = await run("add", "box", "--host", "build.example.com", "--user", "deploy", "--port", "2222", "--key", "~/.ssh/id_box", "--desc", "the build box");
    expect(added.code).toBe(0);
    expect(added.stdout).toContain('Added SSH host "box" to project config');
    const file = join(repo, ".omp", "ssh.json");
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({ hosts: { box: { host: "build.example.com", username: "deploy", port: 2222, keyPath: "~/.ssh/id_box", description: "the build box" } } });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect((await run("add", "home", "--host", "nas", "--scope", "user")).code).toBe(0);
    expect(existsSync(join(home, ".omp", "agent", "ssh.json"))).toBe(true);

    const listed = await run("list");
    expect(listed.stdout).toContain("Project SSH Hosts (.omp/ssh.json):\n  box  build.example.com  deploy  port:2222  ~/.ssh/id_box  - the build box");
    expect(listed.stdout).toContain("User SSH Hosts (~/.omp/agent/ssh.json):\n  home  nas");
    expect(JSON.parse((await run("list", "--json")).stdout)).toEqual({ project: { box: expect.objectContaining({ host: "build.example.com" }) }, user: { home: { host: "nas" } } });

    const before = readFileSync(file, "utf8");
    for (const [args, code, message] of [
      [["add", "box", "--host", "other"], 1, 'host "box" already exists'],
      [["add", "bad name", "--host", "x"], 2, "is not a host name"],
      [["add", "evil", "--host", "-oProxyCommand=touch /tmp/x"], 2, "is not a host address"],
      [["add", "p", "--host", "x", "--port", "70000"], 2, "--port must be an integer between 1 and 65535"],
      [["add", "p", "--host", "x", "--scope", "global"], 2, "--scope takes project or user"],
      [["add", "p"], 2, "--host"],
      [["remove", "nope"], 1, 'host "nope" not found'],
    ] as const) {
      const result = await run(...args);
      expect(result.code).toBe(code);
      expect(result.stderr).toContain(message);
    }
    expect(readFileSync(file, "utf8")).toBe(before);

    // A file with fields omp does not know keeps them through a change.
    writeFileSync(file, JSON.stringify({ $comment: "mine", hosts: { box: { host: "b", extra: 1 } } }));
    expect((await run("add", "two", "--host", "t")).code).toBe(0);
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({ $comment: "mine", hosts: { box: { host: "b", extra: 1 }, two: { host: "t" } } });
    const removed = await run("remove", "box");
    expect(removed.stdout).toContain('Removed SSH host "box" from project config');
    expect(JSON.parse(readFileSync(file, "utf8")).hosts).toEqual({ two: { host: "t" } });
    // A broken file is reported, not overwritten.
    writeFileSync(file, "{ not json");
    const broken = await run("add", "three", "--host", "t");
    expect(broken.code).toBe(1);
    expect(broken.stderr).toContain("is not valid JSON");
    expect(readFileSync(file, "utf8")).toBe("{ not json");
  });
});

describe.skipIf(unavailable !== undefined)("ssh tool", () => {
  /** A user whose ssh_config names the sshd `devbox` (HostName, Port, User, IdentityFile), and whose ~/.omp/agent/ssh.json names that alias. */
  async function setup(config = "") {
    const sshd: PrivateSshd = await startSshd({});
    const ws = workspace();
    const sshConfig = join(ws.home, "ssh_config");
    writeFileSync(
      sshConfig,
      ["Host devbox", "  HostName 127.0.0.1", `  Port ${sshd.port}`, `  User ${sshd.user}`, `  IdentityFile ${sshd.clientKey}`, "  IdentitiesOnly yes", `  UserKnownHostsFile ${sshd.knownHosts}`, "  LogLevel ERROR", ""].join("\n"),
    );
    mkdirSync(join(ws.home, ".omp", "agent"), { recursive: true });
    const openKey = join(ws.home, "open_key");
    writeFileSync(openKey, "not a key", { mode: 0o644 });
    writeFileSync(join(ws.home, ".omp", "agent", "ssh.json"), JSON.stringify({ hosts: { box: { host: "devbox", description: "the test box" }, loose: { host: "devbox", keyPath: openKey }, compat: { host: "devbox", compat: true } } }));
    if (config) writeFileSync(join(ws.home, ".omp", "agent", "config.yml"), config);
    // The system ssh reads the login user's ~/.ssh/config, not $HOME's: OMP_SSH_OPTIONS points it at this user's.
    return { ...ws, sshd, runEnv: { ...env, OMP_SSH_OPTIONS: `-F ${sshConfig}` } };
  }

  test("runs a command on a configured host through the user's ssh_config alias; key material stays out of the model, session and stdout", async () => {
    const { home, repo, sshd, runEnv } = await setup("tools:\n  approval:\n    ssh: allow\n");
    const remoteDir = join(home, "remote-dir");
    mkdirSync(remoteDir);
    writeFileSync(join(remoteDir, "note.txt"), "remote note\n");
    standin.setScript([
      { toolCalls: [{ name: "ssh", arguments: { host: "box", command: "echo answer-$((6*7)); cat note.txt; pwd", cwd: remoteDir } }] },
      { toolCalls: [{ name: "ssh", arguments: { host: "box", command: "echo failing >&2; exit 3" } }] },
      { toolCalls: [{ name: "ssh", arguments: { host: "elsewhere", command: "id" } }] },
      { toolCalls: [{ name: "ssh", arguments: { host: "box", command: "seq 1 200000" } }] },
      { toolCalls: [{ name: "ssh", arguments: { host: "box", command: "sleep 600", timeout: 1 } }] },
      { toolCalls: [{ name: "ssh", arguments: { host: "loose", command: "id" } }] },
      { toolCalls: [{ name: "ssh", arguments: { host: "compat", command: "echo \"$0 ran it\"", cwd: remoteDir } }] },
      { text: "done" },
    ]);
    standin.requests.length = 0;
    const run = await runAgent(["-p", "--model", MODEL, "check the box"], { home, cwd: repo, env: runEnv });
    expect(run.code).toBe(0);
    const requests = modelRequests(standin);
    // Kept out of the first request (search_tool_bm25 names it); called by name, it joins the list from the next request on.
    expect(deferredToolNamesOf(requests[0]!.body)).toContain("ssh");
    const description = requests[1]!.body.tools.find((tool: any) => tool.name === "ssh").description;
    expect(description).toContain("Available hosts: box (devbox, the test box); loose (devbox); compat (devbox)");
    const first = toolResultsOf("anthropic-messages", requests[1]!.body)[0]!;
    expect(first.text).toContain("answer-42");
    expect(first.text).toContain("remote note");
    expect(first.text).toContain(remoteDir);
    const second = toolResultsOf("anthropic-messages", requests[2]!.body).at(-1)!;
    expect(second.isError).toBe(true);
    expect(second.text).toContain("failing");
    expect(second.text).toContain("Command exited with code 3");
    const third = toolResultsOf("anthropic-messages", requests[3]!.body).at(-1)!;
    expect(third.text).toContain("Unknown SSH host: elsewhere. Available hosts: box, loose, compat.");
    // Long output: head and tail for the model, the whole in a log it can read.
    const long = toolResultsOf("anthropic-messages", requests[4]!.body).at(-1)!;
    expect(long.text.length).toBeLessThan(40_000);
    expect(long.text).toStartWith("1\n2\n");
    expect(long.text).toContain("lines omitted from the middle");
    expect(long.text).toContain("200000");
    const log = /saved in (\S+ssh-\d+\.log)/.exec(long.text)?.[1];
    expect(log).toBeDefined();
    expect(readFileSync(log!, "utf8").split("\n")[99_999]).toBe("100000");
    const slow = toolResultsOf("anthropic-messages", requests[5]!.body).at(-1)!;
    expect(slow.isError).toBe(true);
    expect(slow.text).toContain("[SSH: the command did not finish within 1 s and was stopped]");
    const loose = toolResultsOf("anthropic-messages", requests[6]!.body).at(-1)!;
    expect(loose.text).toContain(`SSH key permissions must be 600 or stricter: ${join(home, "open_key")} is 644`);
    // A compat host gets the command through sh -c: $0 is sh there, not the login shell.
    expect(toolResultsOf("anthropic-messages", requests[7]!.body).at(-1)!.text).toBe("sh ran it\n");

    const key = readFileSync(sshd.clientKey, "utf8");
    const keyBody = key.split("\n")[1]!;
    expect(keyBody.length).toBeGreaterThan(20);
    for (const request of requests) expect(JSON.stringify(request.body)).not.toContain(keyBody);
    expect(run.stdout).not.toContain(keyBody);
    expect(sessionFiles(home).length).toBeGreaterThan(0);
    expect(filesContaining([join(home, ".omp")], keyBody)).toEqual([]);
    expect(filesContaining([join(home, ".omp")], "PRIVATE KEY")).toEqual([]);
  });

  test("asks in every approval mode, yolo too: refused in print mode without an allow, and over rpc the question shows host and command", async () => {
    const { home, repo, runEnv } = await setup();
    standin.setScript([{ toolCalls: [{ name: "ssh", arguments: { host: "box", command: "touch made-by-ssh" } }] }, { text: "done" }]);
    standin.requests.length = 0;
    await runAgent(["-p", "--approval-mode", "yolo", "--model", MODEL, "go"], { home, cwd: repo, env: runEnv });
    const refused = toolResultsOf("anthropic-messages", modelRequests(standin)[1]!.body)[0]!;
    expect(refused.text).toContain("asks the user in every approval mode");
    expect(refused.text).toContain("tools.approval.ssh");

    const remoteDir = join(home, "remote");
    mkdirSync(remoteDir);
    standin.setScript([{ toolCalls: [{ name: "ssh", arguments: { host: "box", command: "touch made-by-ssh && echo made", cwd: remoteDir } }] }, { text: "done" }]);
    const rpc = new RpcProcess(["--model", MODEL, "--approval-mode", "yolo"], { home, cwd: repo, env: runEnv });
    try {
      await rpc.waitFrame((f) => f.type === "ready");
      const mark = rpc.mark;
      await rpc.send({ type: "prompt", message: "go" });
      const request = await rpc.waitFrame((f) => f.type === "extension_ui_request", mark);
      expect(request.toolName).toBe("ssh");
      expect(request.message).toContain(`on box in ${remoteDir}: touch made-by-ssh && echo made`);
      expect(existsSync(join(remoteDir, "made-by-ssh"))).toBe(false);
      rpc.writeLine(JSON.stringify({ type: "extension_ui_response", id: request.id, value: "Allow" }));
      await rpc.waitFrame((f) => f.type === "agent_end", mark);
      expect(await rpc.close()).toBe(0);
    } finally {
      rpc.child.kill();
    }
    expect(existsSync(join(remoteDir, "made-by-ssh"))).toBe(true);
  });

  test("no ssh tool without hosts, and a project's ssh.json counts only in a trusted folder", async () => {
    const { home, repo } = workspace();
    mkdirSync(join(repo, ".omp"), { recursive: true });
    writeFileSync(join(repo, ".omp", "ssh.json"), JSON.stringify({ hosts: { planted: { host: "attacker.example" } } }));
    standin.setScript([{ text: "done" }]);
    standin.requests.length = 0;
    await runAgent(["-p", "--model", MODEL, "hi"], { home, cwd: repo, env });
    expect(toolNamesOf("anthropic-messages", modelRequests(standin)[0]!.body)).not.toContain("ssh");
    expect(deferredToolNamesOf(modelRequests(standin)[0]!.body)).not.toContain("ssh");
    standin.setScript([{ text: "done" }]);
    standin.requests.length = 0;
    // Named in --tools, ssh is sent at once, with its hosts in its description.
    await runAgent(["-p", "--trust", "--tools", "read,ssh", "--model", MODEL, "hi"], { home, cwd: repo, env });
    const body = modelRequests(standin)[0]!.body;
    expect(body.tools.find((tool: any) => tool.name === "ssh")?.description).toContain("planted (attacker.example)");
  });
});
