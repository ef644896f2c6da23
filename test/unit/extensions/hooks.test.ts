// Claude-compatibility pieces of the hooks: tool names and input fields both ways, the hooks.json
// of a plugin (with CLAUDE_PLUGIN_ROOT), and how answers are read.
import { describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fromClaude, matchNames, toClaude } from "../../../core/extensions/hooks/claude-tools.ts";
import { loadHooks } from "../../../core/extensions/hooks/load.ts";
import { claudeHooks } from "../../../core/extensions/hooks/runner.ts";
import { tempDir } from "../../support/temp.ts";

const session = { id: "s1", transcriptPath: "/tmp/s1.jsonl", cwd: "/", subagent: false };

describe("Claude's tool names and fields", () => {
  test("each omp tool answers to its Claude names", () => {
    expect(matchNames("edit")).toEqual(["edit", "Edit", "MultiEdit"]);
    expect(matchNames("find")).toEqual(["find", "Glob"]);
    expect(matchNames("mcp__srv__tool")).toEqual(["mcp__srv__tool"]);
  });

  test("inputs go out in Claude's shape and come back in omp's", () => {
    expect(toClaude("read", { path: "a.ts", offset: 3 })).toEqual({ toolName: "Read", toolInput: { file_path: "a.ts", offset: 3 } });
    const single = toClaude("edit", { path: "a.ts", edits: [{ oldText: "x", newText: "y" }] });
    expect(single).toEqual({ toolName: "Edit", toolInput: { file_path: "a.ts", old_string: "x", new_string: "y" } });
    expect(fromClaude("edit", single.toolInput)).toEqual({ path: "a.ts", edits: [{ oldText: "x", newText: "y" }] });
    const multi = toClaude("edit", { path: "a.ts", edits: [{ oldText: "1", newText: "2" }, { oldText: "3", newText: "4", replaceAll: true }] });
    expect(multi.toolName).toBe("MultiEdit");
    expect(fromClaude("edit", multi.toolInput)).toEqual({ path: "a.ts", edits: [{ oldText: "1", newText: "2" }, { oldText: "3", newText: "4", replaceAll: true }] });
    expect(toClaude("grep", { pattern: "x", ignoreCase: true, outputMode: "files" }).toolInput).toEqual({ pattern: "x", "-i": true, output_mode: "files" });
    // Already omp's shape: unchanged.
    expect(fromClaude("write", { path: "b", content: "c" })).toEqual({ path: "b", content: "c" });
  });
});

describe("a plugin's hooks.json", () => {
  test("its hooks run with CLAUDE_PLUGIN_ROOT and OMP_PLUGIN_ROOT; matchers are whole-name regexes", async () => {
    const root = tempDir("omp-plugin-");
    mkdirSync(join(root, "hooks"));
    writeFileSync(
      join(root, "hooks", "hooks.json"),
      JSON.stringify({
        description: "demo",
        hooks: {
          SessionStart: [{ matcher: "startup|resume", hooks: [{ type: "command", command: 'echo "root=$CLAUDE_PLUGIN_ROOT omp=$OMP_PLUGIN_ROOT project=$CLAUDE_PROJECT_DIR"', shell: "bash", async: false }] }],
          PreToolUse: [{ matcher: "Edit", hooks: [{ type: "command", command: "exit 2" }] }],
        },
      }),
    );
    // As core/plugins/wiring.ts hands a plugin's hooks.json to the loader.
    const file = join(root, "hooks", "hooks.json");
    const { hooks, problems } = loadHooks([{ file, block: JSON.parse(readFileSync(file, "utf8")).hooks, pluginRoot: root }]);
    expect(problems).toEqual([]);
    const agent = claudeHooks({ hooks, env: { PATH: process.env.PATH }, warn: () => {} })(session);
    expect(await agent.sessionStart!("startup")).toEqual([`root=${root} omp=${root} project=/`]);
    expect(await agent.sessionStart!("clear")).toEqual([]);
    const signal = new AbortController().signal;
    // "Edit" matches edit but not a tool whose name merely contains it.
    expect(await agent.toolHooks[0]!.beforeToolCall!({ toolName: "edit", toolCallId: "1", input: { path: "a", edits: [] } }, signal)).toMatchObject({ block: expect.any(String) });
    expect(await agent.toolHooks[0]!.beforeToolCall!({ toolName: "notebook_edit_x", toolCallId: "2", input: {} }, signal)).toBeUndefined();
  });
});

describe("answers", () => {
  const run = async (command: string) => {
    const { hooks } = loadHooks([{ file: "/x/config.yml", block: { PreToolUse: [{ hooks: [{ type: "command", command }] }] } }]);
    const warnings: string[] = [];
    const agent = claudeHooks({ hooks, env: { PATH: process.env.PATH }, warn: (line) => warnings.push(line) })(session);
    const outcome = await agent.toolHooks[0]!.beforeToolCall!({ toolName: "bash", toolCallId: "1", input: { command: "ls" } }, new AbortController().signal);
    return { outcome, warnings };
  };

  test("exit codes: 0 goes on, 2 blocks with stderr, others warn and go on", async () => {
    expect((await run("true")).outcome).toEqual({});
    expect((await run("echo nope >&2; exit 2")).outcome).toEqual({ block: "nope" });
    const failed = await run("echo oops >&2; exit 3");
    expect(failed.outcome).toEqual({});
    expect(failed.warnings).toEqual(["PreToolUse hook `echo oops >&2; exit 3` exited 3: oops"]);
  });

  test("JSON: decision block, continue false, ask, and updatedInput in Claude's shape", async () => {
    expect((await run(`echo '{"decision":"block","reason":"old style"}'`)).outcome).toEqual({ block: "old style" });
    expect((await run(`echo '{"continue":false,"stopReason":"halt"}'`)).outcome).toEqual({ block: "halt", halt: "halt" });
    expect((await run(`echo '{"hookSpecificOutput":{"permissionDecision":"ask","permissionDecisionReason":"why"}}'`)).outcome).toEqual({ decision: "ask", reason: "why" });
    expect((await run(`echo '{"hookSpecificOutput":{"updatedInput":{"command":"ls -la"}}}'`)).outcome).toEqual({ input: { command: "ls -la" } });
  });
});

test("the hooks of one event run in parallel; a hung one is killed at its own timeout", async () => {
  const slow = (seconds: number, timeout?: number) => ({ type: "command", command: `sleep ${seconds}; echo done-${seconds}`, ...(timeout ? { timeout } : {}) });
  const { hooks } = loadHooks([{ file: "/x/config.yml", block: { UserPromptSubmit: [{ hooks: [slow(1), slow(1), slow(1)] }, { hooks: [slow(30, 1.5)] }] } }]);
  const warnings: string[] = [];
  const agent = claudeHooks({ hooks, env: { PATH: process.env.PATH }, warn: (line) => warnings.push(line) })(session);
  const started = performance.now();
  const outcome = await agent.userPrompt!("hi");
  const elapsed = performance.now() - started;
  expect(outcome.context).toEqual(["done-1", "done-1", "done-1"]);
  expect(elapsed).toBeGreaterThan(1400);
  expect(elapsed).toBeLessThan(2900);
  expect(warnings).toEqual(["UserPromptSubmit hook `sleep 30; echo done-30` was killed after its 1.5 s timeout"]);
});
