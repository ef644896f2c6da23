// The edit corpus (test/fixtures/edit-corpus/) through dist/omp and the provider stand-in, once per
// edit format: the model reads every file, a bash call changes the stale cases' files behind its
// back, then one turn sends every edit. Each file must end as expected, or be refused unchanged.
// bench/edits.ts runs this file with EDIT_CORPUS_OUT set and records the scores.
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ScriptedToolCall } from "../support/standin/index.ts";
import { agentTestFile, modelRequests, providerCases, runAgent, systemPromptOf, toolNamesOf, toolResultsOf, workspace } from "../support/agent-harness.ts";
import { CASES, FORMATS, type Format, type Outcome, casePath, judge, requestFor, score, setUpCase } from "../support/edit-corpus.ts";

const standin = await agentTestFile();
const [anthropic, openai] = providerCases() as [ReturnType<typeof providerCases>[number], ReturnType<typeof providerCases>[number]];
const results: Record<string, { outcomes: Record<string, Outcome>; seconds: number }> = {};

describe.each(FORMATS)("edit corpus through dist/omp in the %s format", (format: Format) => {
  test("every case applies as expected or is refused with the file unchanged", async () => {
    const { home, repo } = workspace({ "README.md": "edit corpus\n" });
    // apply_patch is what a GPT model gets by default; the others are chosen with edit.mode.
    const provider = format === "apply_patch" ? openai : anthropic;
    if (format !== "apply_patch") {
      mkdirSync(join(home, ".omp", "agent"), { recursive: true });
      writeFileSync(join(home, ".omp", "agent", "config.yml"), `edit:\n  mode: ${format}\n`);
    }
    mkdirSync(join(repo, ".stale"));
    const reads: ScriptedToolCall[] = [];
    const changes: ScriptedToolCall[] = [];
    const edits: ScriptedToolCall[] = [];
    for (const [i, c] of CASES.entries()) {
      const request = requestFor(c, format);
      if (!request) continue;
      setUpCase(repo, c);
      if (c.name !== "create-missing") reads.push({ id: `call_read_${i}`, name: "read", arguments: { path: casePath(c) } });
      if (c.changedAfterRead !== undefined) {
        writeFileSync(join(repo, ".stale", c.name), c.changedAfterRead);
        changes.push({ id: `call_bash_${i}`, name: "bash", arguments: { command: `cp .stale/${c.name} ${casePath(c)}` } });
      }
      edits.push({ id: `call_edit_${i}`, ...request });
    }
    standin.setScript([{ toolCalls: reads }, { toolCalls: changes }, { toolCalls: edits }, { text: "done" }]);
    standin.requests.length = 0;
    const started = performance.now();
    const run = await runAgent(["-p", "--model", provider.model, "edit the files"], { home, cwd: repo, env: provider.env(standin.url) });
    const seconds = (performance.now() - started) / 1000;
    expect(run.stderr).not.toContain("omp:");
    expect(run.code).toBe(0);
    const requests = modelRequests(standin);
    expect(requests).toHaveLength(4);
    const offered = toolNamesOf(provider.api, requests[0]!.body);
    expect(offered).toContain(format === "apply_patch" ? "apply_patch" : "edit");
    if (format === "apply_patch") {
      expect(offered).not.toContain("edit");
      // The system prompt names the tool the model has.
      const prompt = systemPromptOf(provider.api, requests[0]!.body);
      expect(prompt).toContain("Change files with apply_patch (patches)");
      expect(prompt).not.toContain("edit (exact replacements)");
    }
    const wire = new Map(toolResultsOf(provider.api, requests[3]!.body).map((r) => [r.id, r]));
    const outcomes: Record<string, Outcome> = {};
    const wrong: string[] = [];
    for (const [i, c] of CASES.entries()) {
      if (!requestFor(c, format)) {
        outcomes[c.name] = "n/a";
        continue;
      }
      const result = wire.get(`call_edit_${i}`);
      expect(result).toBeDefined();
      const outcome = judge(repo, c, result);
      outcomes[c.name] = outcome;
      if (outcome !== (c.expected === "refuse" ? "refused" : "applied")) wrong.push(`${c.name}: ${outcome}\n${result?.text}`);
    }
    results[format] = { outcomes, seconds };
    if (process.env.EDIT_CORPUS_OUT) writeFileSync(process.env.EDIT_CORPUS_OUT, JSON.stringify(results, null, 2));
    expect(wrong).toEqual([]);
    const s = score(new Map(Object.entries(outcomes)));
    expect(s.damaged).toBe(0);
    expect(s.applied).toBeGreaterThanOrEqual(28);
  });
});

test("a models.yml model's editMode wins over the model's family and the edit.mode setting", async () => {
  const { home, repo } = workspace({ "README.md": "x\n" });
  mkdirSync(join(home, ".omp", "agent"), { recursive: true });
  writeFileSync(join(home, ".omp", "agent", "config.yml"), "edit:\n  mode: patch\n");
  const provider = `providers:\n  mine:\n    baseUrl: ${standin.url}/v1\n    apiKey: sk-local-key\n    api: openai-responses\n    models:\n      - id: gpt-6.2-sol\n        editMode: hashline\n`;
  writeFileSync(join(home, ".omp", "agent", "models.yml"), provider);
  standin.setScript([{ text: "ok" }]);
  standin.requests.length = 0;
  const run = await runAgent(["-p", "--model", "mine/gpt-6.2-sol", "hi"], { home, cwd: repo });
  expect(run.stderr).not.toContain("omp:");
  expect(run.code).toBe(0);
  const tools = modelRequests(standin)[0]!.body.tools as { name: string; parameters: { required: string[] } }[];
  const edit = tools.find((tool) => tool.name === "edit");
  expect(tools.map((tool) => tool.name)).not.toContain("apply_patch");
  expect(edit?.parameters.required).toEqual(["input"]);
});
