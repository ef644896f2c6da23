// Request economy per turn, on the compiled binary: what a request repeats beyond the growing
// conversation. A file read again unchanged is not sent twice (a reference to the earlier result
// instead), a changed one is sent in full, and the system prompt does not repeat the tools'
// descriptions that the tool list already carries.
import { describe, expect, test } from "bun:test";
import { appendFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { agentTestFile, modelRequests, runAgent, systemPromptOf, toolResultsOf, workspace } from "../support/agent-harness.ts";

const standin = await agentTestFile();
const env = () => ({ ANTHROPIC_BASE_URL: standin.url, ANTHROPIC_API_KEY: `omptest_ant_${crypto.randomUUID().replaceAll("-", "")}` });
const MODULE = Array.from({ length: 80 }, (_, i) => `export function f${i}(x: number): number {\n  return x * ${i} + 1;\n}\n`).join("\n");
const occurrences = (text: string, needle: string) => text.split(needle).length - 1;

describe("what every request repeats", () => {
  test("a file read again unchanged is a reference to the earlier result; once it changed, it is read in full", async () => {
    const { home, repo } = workspace();
    writeFileSync(join(repo, "module.ts"), MODULE);
    const read = { toolCalls: [{ name: "read", arguments: { path: "module.ts" } }] };
    standin.setScript([read, read, { toolCalls: [{ name: "bash", arguments: { command: "echo 'export const added = 1;' >> module.ts" } }] }, read, { text: "done" }]);
    const before = modelRequests(standin).length;
    const result = await runAgent(["-p", "--model", "anthropic/claude-opus-5-5", "go"], { home, cwd: repo, env: env() });
    expect(result.code).toBe(0);
    const requests = modelRequests(standin).slice(before);
    expect(requests).toHaveLength(5);
    const results = toolResultsOf("anthropic-messages", requests[4]!.body);
    expect(results).toHaveLength(4);
    // The first read carries the file, the second only points at it.
    expect(results[0]!.text).toContain("return x * 79 + 1;");
    expect(results[1]!.text).not.toContain("return x * 79 + 1;");
    expect(results[1]!.text).toContain(`the same output as read call ${results[0]!.id}`);
    // Changed since: the whole file again, with the new line.
    expect(results[3]!.text).toContain("return x * 79 + 1;");
    expect(results[3]!.text).toContain("export const added = 1;");
    // The last request carries the old text once and the new text once: nothing else repeats it.
    expect(occurrences(JSON.stringify(requests[4]!.body), "return x * 79 + 1;")).toBe(2);
    // Earlier requests are prefixes of later ones (the prompt cache holds): the reference is what the second read sent from the start.
    expect(toolResultsOf("anthropic-messages", requests[2]!.body)[1]!.text).toBe(results[1]!.text);
  });

  test("a small result is sent again as it is", async () => {
    const { home, repo } = workspace();
    appendFileSync(join(repo, "README.md"), "short\n");
    const read = { toolCalls: [{ name: "read", arguments: { path: "README.md" } }] };
    standin.setScript([read, read, { text: "done" }]);
    const before = modelRequests(standin).length;
    const result = await runAgent(["-p", "--model", "anthropic/claude-opus-5-5", "go"], { home, cwd: repo, env: env() });
    expect(result.code).toBe(0);
    const results = toolResultsOf("anthropic-messages", modelRequests(standin).at(-1)!.body);
    expect(modelRequests(standin).length - before).toBe(3);
    expect(results.map((r) => r.text.includes("short"))).toEqual([true, true]);
  });

  test("the system prompt does not repeat the tools: each request carries them once, with their descriptions", async () => {
    const { home, repo } = workspace();
    standin.setScript([{ text: "ok" }]);
    const result = await runAgent(["-p", "--model", "anthropic/claude-opus-5-5", "hi"], { home, cwd: repo, env: env() });
    expect(result.code).toBe(0);
    const body = modelRequests(standin).at(-1)!.body;
    const prompt = systemPromptOf("anthropic-messages", body);
    const tools = body.tools as { name: string; description: string }[];
    expect(tools.length).toBeGreaterThan(5);
    for (const tool of tools) {
      expect(prompt).not.toContain(`- ${tool.name}: `);
      expect(prompt).not.toContain(tool.description.slice(0, 80));
    }
  });

});
