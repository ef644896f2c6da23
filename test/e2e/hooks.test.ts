// Claude Code-style hooks from config.yml, run by the compiled binary around a scripted model:
// blocking, rewriting and denying tool calls, context from SessionStart and UserPromptSubmit,
// PostToolUse feedback, a Stop hook that blocks once, a hung hook killed at its timeout, and
// project hooks that wait for the folder to be trusted.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { setFolderTrust } from "../../core/trust/folder-trust.ts";
import { script, writeHooks } from "../support/hook-scripts.ts";
import { agentTestFile, modelRequests, providerCases, runAgent, toolResultsOf, userTextsOf, workspace } from "../support/agent-harness.ts";

const standin = await agentTestFile();
const provider = providerCases()[0]!;
const api = provider.api;


const userConfig = (home: string) => join(home, ".omp", "agent", "config.yml");
const group = (matcher: string | undefined, command: string, timeout?: number) => ({
  ...(matcher === undefined ? {} : { matcher }),
  hooks: [{ type: "command", command, ...(timeout === undefined ? {} : { timeout }) }],
});

async function run(home: string, repo: string, prompt = "go") {
  standin.requests.length = 0;
  const result = await runAgent(["-p", "--model", provider.model, prompt], { home, cwd: repo, env: provider.env(standin.url) });
  return { ...result, bodies: modelRequests(standin).map((r) => r.body) };
}

describe("PreToolUse", () => {
  test("exit 2 blocks the call and the model reads the hook's stderr; the hook got Claude's JSON", async () => {
    const { home, repo } = workspace();
    const seen = join(home, "seen.json");
    const hook = script(home, "guard.sh", `cat > ${seen}\necho "no shell commands in this repo" >&2\nexit 2`);
    writeHooks(userConfig(home), { PreToolUse: [group("Bash", hook)] });
    standin.setScript([{ toolCalls: [{ id: "c1", name: "bash", arguments: { command: "touch marker" } }] }, { text: "ok" }]);
    const result = await run(home, repo);
    expect(result.code).toBe(0);
    expect(existsSync(join(repo, "marker"))).toBe(false);
    const [toolResult] = toolResultsOf(api, result.bodies[1]);
    expect(toolResult!.text).toBe("no shell commands in this repo");
    expect(toolResult!.isError).toBe(true);
    const stdin = JSON.parse(readFileSync(seen, "utf8"));
    expect(stdin).toMatchObject({ hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "touch marker" }, tool_use_id: "c1", cwd: repo });
    expect(stdin.transcript_path).toEndWith(".jsonl");
    expect(typeof stdin.session_id).toBe("string");
  });

  test("updatedInput in Claude's shape rewrites the call in omp's; the matcher uses Claude's tool name", async () => {
    const { home, repo } = workspace();
    const seen = join(home, "seen.json");
    const answer = JSON.stringify({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "allow", updatedInput: { file_path: "rewritten.txt", content: "from the hook\n" } } });
    const hook = script(home, "rewrite.sh", `cat > ${seen}\nprintf '%s' '${answer}'`);
    writeHooks(userConfig(home), { PreToolUse: [group("Edit|Write", hook)] });
    standin.setScript([{ toolCalls: [{ id: "c1", name: "write", arguments: { path: "asked.txt", content: "from the model\n" } }] }, { text: "ok" }]);
    const result = await run(home, repo);
    expect(result.code).toBe(0);
    expect(existsSync(join(repo, "asked.txt"))).toBe(false);
    expect(readFileSync(join(repo, "rewritten.txt"), "utf8")).toBe("from the hook\n");
    expect(JSON.parse(readFileSync(seen, "utf8")).tool_input).toEqual({ file_path: join(repo, "asked.txt"), content: "from the model\n" });
  });

  test("permissionDecision deny blocks with its reason; a hook that does not match is not run", async () => {
    const { home, repo } = workspace();
    const ran = join(home, "ran");
    const deny = JSON.stringify({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: "README is frozen" } });
    writeHooks(userConfig(home), {
      PreToolUse: [group("Read", `echo '${deny}'`), group("Bash", `touch ${ran}`)],
    });
    standin.setScript([{ toolCalls: [{ id: "c1", name: "read", arguments: { path: "README.md" } }] }, { text: "ok" }]);
    const result = await run(home, repo);
    const [toolResult] = toolResultsOf(api, result.bodies[1]);
    expect(toolResult!.text).toBe("README is frozen");
    expect(toolResult!.isError).toBe(true);
    expect(existsSync(ran)).toBe(false);
  });

  test("permissionDecision ask with nobody to ask (print mode) does not run the call and says why", async () => {
    const { home, repo } = workspace();
    const ask = JSON.stringify({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "ask", permissionDecisionReason: "touches the network" } });
    writeHooks(userConfig(home), { PreToolUse: [group("Bash", `printf '%s' '${ask}'`)] });
    standin.setScript([{ toolCalls: [{ id: "c1", name: "bash", arguments: { command: "touch marker" } }] }, { text: "ok" }]);
    const result = await run(home, repo);
    expect(existsSync(join(repo, "marker"))).toBe(false);
    const [toolResult] = toolResultsOf(api, result.bodies[1]);
    expect(toolResult!.text).toBe("bash was not run: a hook wants the user to approve it (a hook asks: touches the network), and there is nobody to ask in this non-interactive run.");
  });

  test("a hung hook is killed with its children at its timeout; the call goes on with a warning", async () => {
    const { home, repo } = workspace();
    const pidFile = join(home, "child.pid");
    writeHooks(userConfig(home), { PreToolUse: [group(undefined, `sleep 60 & echo $! > ${pidFile}; wait`, 1)] });
    standin.setScript([{ toolCalls: [{ id: "c1", name: "bash", arguments: { command: "echo ran > out.txt" } }] }, { text: "ok" }]);
    const started = Date.now();
    const result = await run(home, repo);
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain("was killed after its 1 s timeout");
    expect(readFileSync(join(repo, "out.txt"), "utf8")).toBe("ran\n");
    // Gone, or a zombie nobody reaps (a container's init may not): either way no longer running.
    const stat = join("/proc", readFileSync(pidFile, "utf8").trim(), "stat");
    const state = existsSync(stat) ? readFileSync(stat, "utf8").split(") ")[1]![0] : "gone";
    expect(["gone", "Z", "X"]).toContain(state!);
  });
});

describe("context and feedback", () => {
  test("SessionStart stdout and UserPromptSubmit additionalContext reach the first request; garbage JSON is plain output", async () => {
    const { home, repo } = workspace();
    const seen = join(home, "prompt.json");
    const context = JSON.stringify({ hookSpecificOutput: { hookEventName: "UserPromptSubmit", additionalContext: "ticket ABC-42 is open" } });
    writeHooks(userConfig(home), {
      SessionStart: [group("startup", "echo 'branch policy: never push to main'"), group("resume", "echo 'resumed!'")],
      UserPromptSubmit: [group(undefined, `cat > ${seen}; echo '${context}'`), group(undefined, "echo '{not json'")],
    });
    standin.setScript([{ text: "ok" }]);
    const result = await run(home, repo, "fix the bug");
    expect(result.code).toBe(0);
    const [first] = userTextsOf(api, result.bodies[0]);
    expect(first).toContain("branch policy: never push to main");
    expect(first).toContain("ticket ABC-42 is open");
    expect(first).toContain("{not json");
    expect(first).not.toContain("resumed!");
    expect(first).toEndWith("fix the bug");
    expect(JSON.parse(readFileSync(seen, "utf8"))).toMatchObject({ hook_event_name: "UserPromptSubmit", prompt: "fix the bug" });
  });

  test("UserPromptSubmit exit 2 blocks the prompt before any request", async () => {
    const { home, repo } = workspace();
    writeHooks(userConfig(home), { UserPromptSubmit: [group(undefined, "echo 'prompts mentioning secrets are refused' >&2; exit 2")] });
    standin.setScript([{ text: "never" }]);
    const result = await run(home, repo, "print the secrets");
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("prompts mentioning secrets are refused");
    expect(result.bodies).toHaveLength(0);
  });

  test("PostToolUse sees the result and its feedback is added to it", async () => {
    const { home, repo } = workspace();
    const seen = join(home, "post.json");
    writeHooks(userConfig(home), { PostToolUse: [group("Bash", `cat > ${seen}; echo 'lint: 2 warnings' >&2; exit 2`)] });
    standin.setScript([{ toolCalls: [{ id: "c1", name: "bash", arguments: { command: "echo built" } }] }, { text: "ok" }]);
    const result = await run(home, repo);
    const [toolResult] = toolResultsOf(api, result.bodies[1]);
    expect(toolResult!.text).toContain("built");
    expect(toolResult!.text).toContain("PostToolUse hook feedback:\nlint: 2 warnings");
    const stdin = JSON.parse(readFileSync(seen, "utf8"));
    expect(stdin.tool_response.output).toContain("built");
    expect(stdin.tool_name).toBe("Bash");
  });

  test("a Stop hook that blocks once makes the model go on with its reason, then lets it stop", async () => {
    const { home, repo } = workspace();
    const log = join(home, "stop.log");
    const hook = script(home, "stop.sh", `input=$(cat)\necho "$input" >> ${log}\ncase "$input" in *'"stop_hook_active":true'*) exit 0;; esac\necho "run the tests first" >&2\nexit 2`);
    writeHooks(userConfig(home), { Stop: [group(undefined, hook)], SessionEnd: [group(undefined, `cat >> ${log}`)] });
    standin.setScript([{ text: "done" }, { text: "tests pass, done" }]);
    const result = await run(home, repo);
    expect(result.code).toBe(0);
    expect(result.bodies).toHaveLength(2);
    expect(userTextsOf(api, result.bodies[1]).at(-1)).toContain("run the tests first");
    const events = readFileSync(log, "utf8").trim().split("\n").map((line) => JSON.parse(line));
    expect(events.map((e) => [e.hook_event_name, e.stop_hook_active])).toEqual([
      ["Stop", false],
      ["Stop", true],
      ["SessionEnd", undefined],
    ]);
  });

  test("a Stop hook that always blocks cannot keep the agent going forever", async () => {
    const { home, repo } = workspace();
    writeHooks(userConfig(home), { Stop: [group(undefined, "echo 'again' >&2; exit 2")] });
    standin.setScript(Array.from({ length: 10 }, () => ({ text: "done" })));
    const result = await run(home, repo);
    expect(result.code).toBe(0);
    expect(result.bodies).toHaveLength(6);
  });
});

describe("trust and bad input", () => {
  test("project hooks are skipped with a notice in an untrusted folder and run once it is trusted", async () => {
    const { home, repo } = workspace();
    const ran = join(home, "project-hook-ran");
    writeHooks(join(repo, ".omp", "config.yml"), { SessionStart: [group(undefined, `touch ${ran}`)] });
    standin.setScript([{ text: "ok" }]);
    const untrusted = await run(home, repo);
    expect(untrusted.code).toBe(0);
    expect(existsSync(ran)).toBe(false);
    expect(untrusted.stderr).toContain("is not trusted, so these were skipped: .omp/config.yml: hooks");
    expect(untrusted.stderr).toContain("omp trust");

    setFolderTrust(repo, true, { OMP_AGENT_DIR: join(home, ".omp", "agent") });
    standin.setScript([{ text: "ok" }]);
    const trusted = await run(home, repo);
    expect(trusted.code).toBe(0);
    expect(existsSync(ran)).toBe(true);
    expect(trusted.stderr).not.toContain("not trusted");
  });

  test("malformed hooks are reported once, naming the file, and the good ones still run", async () => {
    const { home, repo } = workspace();
    const ran = join(home, "good-ran");
    writeHooks(userConfig(home), {
      PreToolCall: [group(undefined, "true")],
      SessionStart: [{ matcher: "(", hooks: [{ type: "command", command: "true" }] }, { hooks: [{ type: "prompt", prompt: "x" }] }, group(undefined, `touch ${ran}`)],
    });
    standin.setScript([{ text: "ok" }]);
    const result = await run(home, repo);
    expect(result.code).toBe(0);
    expect(existsSync(ran)).toBe(true);
    expect(result.stderr).toContain('config.yml: unknown hook event "PreToolCall"');
    expect(result.stderr).toContain("hooks.SessionStart[0]: matcher \"(\" is not a valid regular expression");
    expect(result.stderr).toContain('hooks.SessionStart[1].hooks[0]: type "prompt" is not supported');
    expect(result.stderr.match(/PreToolCall/g)).toHaveLength(1);
  });
});
