// Issue 38 item 4: a real Claude Code session and a real Codex rollout (the CLIs from npm, run against the provider
// stand-in) continued in omp with --from-claude / --from-codex: their turns, tool calls and the tools' results
// are in the next request, and the transcript stays as it was.
import { describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { agentTestFile, modelRequests, runAgent, toolCallsOf, toolResultsOf, workspace } from "../support/agent-harness.ts";
import { CLAUDE, codexExec } from "../support/peer-clis.ts";

const standin = await agentTestFile();

describe("--from-claude", () => {
  test("a Claude Code session with a Bash call continues in omp with its history, tool call and result", async () => {
    const { home, repo } = workspace();
    writeFileSync(join(repo, "notes.txt"), "the secret word is pelican\n");
    // Claude Code may make side calls besides the task; every reply after the tool call is the answer.
    standin.setScript([
      { text: "Let me read it.", toolCalls: [{ name: "Bash", arguments: { command: "cat notes.txt", description: "Read notes.txt" } }] },
      ...Array.from({ length: 6 }, () => ({ text: "The secret word is pelican." })),
    ]);
    const claude = Bun.spawn([CLAUDE, "-p", "What is the secret word in notes.txt? Use Bash.", "--allowedTools", "Bash"], {
      cwd: repo,
      env: {
        PATH: process.env.PATH!,
        HOME: home,
        ANTHROPIC_BASE_URL: standin.url,
        ANTHROPIC_API_KEY: "sk-ant-claude-code",
        ANTHROPIC_MODEL: "claude-sonnet-4-5",
        ANTHROPIC_DEFAULT_HAIKU_MODEL: "claude-sonnet-4-5",
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
        DISABLE_AUTOUPDATER: "1",
        CLAUDE_CODE_MAX_RETRIES: "0",
        NO_PROXY: "127.0.0.1,localhost",
      },
      stdout: "pipe",
      stderr: "pipe",
    });
    const [said, code] = await Promise.all([new Response(claude.stdout).text(), claude.exited]);
    expect(code).toBe(0);
    expect(said).toContain("pelican");
    const projects = join(home, ".claude", "projects");
    const [project] = readdirSync(projects);
    const [file] = readdirSync(join(projects, project!)).filter((name) => name.endsWith(".jsonl"));
    const transcript = join(projects, project!, file!);
    const before = readFileSync(transcript, "utf8");

    standin.setScript([{ text: "Imported and answered." }]);
    standin.requests.length = 0;
    const run = await runAgent(["--from-claude", "-p", "and what was the word again?"], { home, cwd: repo, env: { ANTHROPIC_BASE_URL: standin.url, ANTHROPIC_API_KEY: "sk-ant-omp" } });
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("Imported and answered.\n");
    const body = modelRequests(standin)[0]!.body;
    const users = body.messages.filter((m: any) => m.role === "user" && m.content.some((b: any) => b.type === "text")).map((m: any) => m.content.filter((b: any) => b.type === "text").map((b: any) => b.text).join(""));
    expect(users[0]).toBe("What is the secret word in notes.txt? Use Bash.");
    expect(users.at(-1)).toBe("and what was the word again?");
    expect(toolCallsOf("anthropic-messages", body).map((call) => call.name)).toEqual(["Bash"]);
    expect(toolResultsOf("anthropic-messages", body)[0]!.text).toContain("the secret word is pelican");
    expect(JSON.stringify(body.messages)).toContain("The secret word is pelican.");
    expect(readFileSync(transcript, "utf8")).toBe(before);

    // It is an omp session now: listed by its first prompt and continued with -c.
    const listed = await runAgent(["-r"], { home, cwd: repo });
    expect(listed.stdout).toContain("What is the secret word in notes.txt? Use Bash.");
  }, 180_000);

  test("no Claude Code session for the project says where it looked", async () => {
    const { home, repo } = workspace();
    const run = await runAgent(["--from-claude", "-p", "hi"], { home, cwd: repo, env: { ANTHROPIC_API_KEY: "sk-ant-x" } });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^omp: no Claude Code session in .*\.claude\/projects\/-/);
    // A file that is not a transcript is named, and nothing is written.
    writeFileSync(join(repo, "broken.jsonl"), "not json\n{\"type\":\"queue-operation\"}\n");
    const broken = await runAgent(["--from-claude", "broken.jsonl", "-p", "hi"], { home, cwd: repo, env: { ANTHROPIC_API_KEY: "sk-ant-x" } });
    expect(broken.code).toBe(2);
    expect(broken.stderr).toBe(`omp: ${join(repo, "broken.jsonl")} holds no conversation to import (is it a Claude Code session file?)\n`);
  });
});

function runCodex(home: string, cwd: string, prompt: string) {
  const child = Bun.spawn(
    codexExec(`${standin.url}/v1`, "STANDIN_KEY", "gpt-5-codex", prompt),
    { cwd, env: { PATH: process.env.PATH!, HOME: home, CODEX_HOME: join(home, ".codex"), STANDIN_KEY: "sk-codex", NO_PROXY: "127.0.0.1,localhost" }, stdout: "pipe", stderr: "pipe" },
  );
  return Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
}

describe("--from-codex", () => {
  test("a Codex rollout with a shell call continues in omp with its history, tool call and result", async () => {
    const { home, repo } = workspace();
    mkdirSync(join(home, ".codex"), { recursive: true });
    writeFileSync(join(repo, "notes.txt"), "the secret word is heron\n");
    // Codex's shell tool has gone by several names; a first run's request says which this one has.
    standin.setScript([{ text: "placeholder" }]);
    const from = standin.requests.length;
    await runCodex(home, repo, "warm up");
    const tools: string[] = (modelRequests(standin).at(-1)?.body.tools ?? []).map((t: any) => t.name ?? t.function?.name);
    expect(standin.requests.length).toBeGreaterThan(from);
    const shell = ["exec_command", "shell", "local_shell", "shell_command"].find((name) => tools.includes(name))!;
    const args = shell === "exec_command" ? { cmd: "cat notes.txt" } : shell === "shell_command" ? { command: "cat notes.txt" } : { command: ["cat", "notes.txt"] };
    standin.setScript([{ text: "Reading the notes.", toolCalls: [{ name: shell, arguments: args }] }, ...Array.from({ length: 6 }, () => ({ text: "The notes say heron." }))]);
    const [out, err, code] = await runCodex(home, repo, "What is the secret word in notes.txt? Run a shell command to read it.");
    expect({ code, err: err.slice(-1000) }).toEqual({ code: 0, err: expect.any(String) });
    expect(out).toContain("heron");

    standin.setScript([{ text: "Imported from Codex." }]);
    standin.requests.length = 0;
    const run = await runAgent(["--from-codex", "--model", "anthropic/claude-sonnet-4-5", "-p", "and the word again?"], { home, cwd: repo, env: { CODEX_HOME: join(home, ".codex"), ANTHROPIC_BASE_URL: standin.url, ANTHROPIC_API_KEY: "sk-ant-omp" } });
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("Imported from Codex.\n");
    const body = modelRequests(standin)[0]!.body;
    const text = JSON.stringify(body.messages);
    // The newest rollout of this project is the second run's: its prompt, call, result and answer.
    expect(text).toContain("What is the secret word in notes.txt? Run a shell command to read it.");
    expect(text).not.toContain("environment_context");
    expect(toolCallsOf("anthropic-messages", body).map((call) => call.name)).toEqual([shell]);
    expect(toolResultsOf("anthropic-messages", body)[0]!.text).toContain("the secret word is heron");
    expect(text).toContain("The notes say heron.");
  }, 180_000);
});
