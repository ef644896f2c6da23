// The system prompt as the original omp builds it from the user's and the project's files, on
// the compiled binary: .omp/AGENTS.md and .omp/RULES.md (nearest, walking up), the user's
// RULES.md, .claude/CLAUDE.md, SYSTEM.md, prompt flags that name files, and --no-tools.
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { agentTestFile, modelRequests, runAgent, systemPromptOf, toolNamesOf, workspace } from "../support/agent-harness.ts";

const standin = await agentTestFile();
const env = () => ({ ANTHROPIC_BASE_URL: standin.url, ANTHROPIC_API_KEY: `omptest_ant_${crypto.randomUUID().replaceAll("-", "")}` });

function put(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

async function systemPrompt(args: string[], home: string, cwd: string): Promise<{ prompt: string; body: any }> {
  standin.setScript([{ text: "ok" }]);
  const result = await runAgent(["-p", "--model", "anthropic/claude-opus-5-5", ...args, "hi"], { home, cwd, env: env() });
  expect(result.stderr).toBe("");
  expect(result.code).toBe(0);
  const body = modelRequests(standin).at(-1)!.body;
  return { prompt: systemPromptOf("anthropic-messages", body), body };
}

describe("context files and prompts", () => {
  test(".omp/AGENTS.md and .omp/RULES.md nearest first, the user's RULES.md, .claude/CLAUDE.md, and SYSTEM.md replacing the instructions", async () => {
    const { home, repo } = workspace();
    const sub = join(repo, "packages", "api");
    put(join(repo, ".omp", "AGENTS.md"), "ROOT-NATIVE-CONTEXT\n");
    put(join(repo, ".omp", "RULES.md"), "ROOT-RULES\n");
    put(join(sub, ".omp", "AGENTS.md"), "SUB-NATIVE-CONTEXT\n");
    put(join(sub, ".claude", "CLAUDE.md"), "CLAUDE-DIR-CONTEXT\n");
    put(join(home, ".omp", "agent", "RULES.md"), "USER-RULES\n");
    put(join(repo, ".omp", "SYSTEM.md"), "ROOT-SYSTEM (not read from a subdirectory)\n");

    const plain = (await systemPrompt([], home, sub)).prompt;
    expect(plain).toContain("SUB-NATIVE-CONTEXT");
    expect(plain).not.toContain("ROOT-NATIVE-CONTEXT");
    expect(plain).toContain("CLAUDE-DIR-CONTEXT");
    expect(plain).toContain("USER-RULES");
    expect(plain).toContain("ROOT-RULES");
    expect(plain.indexOf("USER-RULES")).toBeLessThan(plain.indexOf("ROOT-RULES"));
    expect(plain).toContain("You are omp, a coding agent");
    expect(plain).not.toContain("ROOT-SYSTEM");

    put(join(sub, ".omp", "SYSTEM.md"), "You are a careful reviewer. CUSTOM-SYSTEM\n");
    put(join(home, ".omp", "agent", "APPEND_SYSTEM.md"), "USER-APPENDED\n");
    const custom = (await systemPrompt([], home, sub)).prompt;
    expect(custom).toStartWith("You are a careful reviewer. CUSTOM-SYSTEM");
    expect(custom).not.toContain("You are omp, a coding agent");
    // The environment and the context files stay.
    expect(custom).toContain(`Working directory: ${sub}`);
    expect(custom).toContain("SUB-NATIVE-CONTEXT");
    expect(custom.trimEnd()).toEndWith("USER-APPENDED");
  });

  test("--system-prompt and --append-system-prompt read the file an argument names, else take the text", async () => {
    const { home, repo } = workspace();
    put(join(repo, "prompts", "reviewer.md"), "FROM-A-FILE: review only.\n");
    const fromFile = (await systemPrompt(["--system-prompt", "prompts/reviewer.md", "--append-system-prompt", "APPENDED TEXT"], home, repo)).prompt;
    expect(fromFile).toStartWith("FROM-A-FILE: review only.");
    expect(fromFile).not.toContain("prompts/reviewer.md");
    expect(fromFile.trimEnd()).toEndWith("APPENDED TEXT");
    const asText = (await systemPrompt(["--system-prompt", "Be terse."], home, repo)).prompt;
    expect(asText).toStartWith("Be terse.");
  });

  test("with --no-tools the prompt neither lists tools nor tells the model to use them", async () => {
    const { home, repo } = workspace();
    const { prompt, body } = await systemPrompt(["--no-tools"], home, repo);
    expect(toolNamesOf("anthropic-messages", body)).toEqual([]);
    expect(prompt).not.toContain("Tools available");
    expect(prompt).not.toMatch(/\b(bash|grep|edit|write)\b/);
    expect(prompt).toContain("cannot read files, run commands or change anything");
  });
});
