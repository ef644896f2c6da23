import { mkdirSync, writeFileSync } from "node:fs";
import { CLAUDE, codexExec } from "../support/peer-clis.ts";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "bun:test";
import { tempDir } from "../support/omp.ts";
import { type Standin, startStandin } from "../support/standin/index.ts";
import { type GatewayProcess, gatewayHome, startGatewayProcess, writeUpstreamModels } from "../support/gateway.ts";

/**
 * Real clients from npm through `omp auth-gateway serve`: Claude Code (`claude -p`) speaking
 * Anthropic Messages and Codex (`codex exec`) speaking Responses, each running a tool on this
 * machine and answering from its output. Upstream is a different format each time, so the
 * gateway translates both ways.
 */


let standin: Standin;
let gateway: GatewayProcess;

beforeAll(async () => {
  standin = await startStandin();
  const home = gatewayHome();
  writeUpstreamModels(home, standin.url);
  gateway = await startGatewayProcess(home);
});

afterAll(async () => {
  await gateway?.stop();
  await standin?.close();
});

async function run(argv: string[], cwd: string, env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = Bun.spawn(argv, { cwd, env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const timer = setTimeout(() => child.kill("SIGKILL"), 100_000);
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  clearTimeout(timer);
  return { code, stdout, stderr };
}

/** Every POST the stand-in answered since `from`, as JSON text, for assertions on what the client sent. */
const sentSince = (from: number) => standin.requests.slice(from).filter((r) => r.method === "POST").map((r) => JSON.stringify(r.body));

test.each([
  ["OpenAI Chat Completions", "chat-up"],
  ["OpenAI Responses", "resp-up"],
  ["Gemini", "gemini-up"],
])("Claude Code runs a Bash tool through the gateway (Anthropic in, %s upstream)", async (_name, model) => {
  const work = tempDir("omp-gw-claude-");
  const home = join(work, "home");
  mkdirSync(home);
  writeFileSync(join(work, "notes.txt"), "the secret word is pelican\n");
  // Claude Code may make side calls (titles, topic checks) besides the task; every reply after the
  // tool call is the answer, so any extra turn gets it too.
  standin.setScript([
    { text: "Let me read it.", toolCalls: [{ name: "Bash", arguments: { command: "cat notes.txt", description: "Read notes.txt" } }] },
    ...Array.from({ length: 6 }, () => ({ text: "The notes say the secret word is pelican." })),
  ]);
  const from = standin.requests.length;
  const result = await run([CLAUDE, "-p", "What is the secret word in notes.txt? Use Bash.", "--allowedTools", "Bash", "--output-format", "json"], work, {
    PATH: process.env.PATH!,
    HOME: home,
    ANTHROPIC_BASE_URL: gateway.url,
    ANTHROPIC_AUTH_TOKEN: gateway.token,
    ANTHROPIC_MODEL: model,
    ANTHROPIC_DEFAULT_HAIKU_MODEL: model,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DISABLE_AUTOUPDATER: "1",
    CLAUDE_CODE_MAX_RETRIES: "0",
    NO_PROXY: "127.0.0.1,localhost",
  });
  const sent = sentSince(from);
  expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: expect.any(String) });
  const output = JSON.parse(result.stdout);
  expect(output.is_error).toBe(false);
  expect(output.result).toContain("pelican");
  // The tool really ran: its output went back upstream as the result of the call.
  expect(sent.some((body) => body.includes("the secret word is pelican"))).toBe(true);
}, 120_000);

test.each([
  ["Anthropic Messages", "claude-up"],
  ["OpenAI Chat Completions", "chat-up"],
])("Codex runs a shell command through the gateway (Responses in, %s upstream)", async (_name, model) => {
  const work = tempDir("omp-gw-codex-");
  const codexHome = join(work, "codex-home");
  mkdirSync(codexHome);
  writeFileSync(join(work, "notes.txt"), "the secret word is heron\n");
  const from = standin.requests.length;
  // Codex's shell tool has gone by several names; the first request says which it has.
  standin.setScript([{ text: "placeholder" }]);
  const result = await runCodex(work, codexHome, model);
  const first = standin.requests.slice(from).find((r) => r.method === "POST")?.body;
  expect(first).toBeDefined();
  const tools: string[] = (first.tools ?? []).map((t: any) => t.name ?? t.function?.name);
  const shell = ["exec_command", "shell", "local_shell", "shell_command"].find((name) => tools.includes(name));
  expect({ shell, tools, code: result.code }).toMatchObject({ shell: expect.any(String) });
  const args = shell === "exec_command" ? { cmd: "cat notes.txt" } : shell === "shell_command" ? { command: "cat notes.txt" } : { command: ["cat", "notes.txt"] };

  standin.setScript([
    { text: "Reading the notes.", toolCalls: [{ name: shell!, arguments: args }] },
    ...Array.from({ length: 6 }, () => ({ text: "The notes say the secret word is heron." })),
  ]);
  const mark = standin.requests.length;
  const done = await runCodex(work, codexHome, model);
  const sent = sentSince(mark);
  expect({ code: done.code, stderr: done.stderr.slice(-2000) }).toEqual({ code: 0, stderr: expect.any(String) });
  expect(done.stdout).toContain("heron");
  expect(sent.some((body) => body.includes("the secret word is heron"))).toBe(true);
}, 180_000);

function runCodex(work: string, codexHome: string, model: string) {
  return run(
    codexExec(`${gateway.url}/v1`, "OMP_GATEWAY_TOKEN", model, "What is the secret word in notes.txt? Run a shell command to read it."),
    work,
    { PATH: process.env.PATH!, HOME: work, CODEX_HOME: codexHome, OMP_GATEWAY_TOKEN: gateway.token, NO_PROXY: "127.0.0.1,localhost" },
  );
}
