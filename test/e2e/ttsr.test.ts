// Time-traveling stream rules on the compiled binary, against the provider stand-in in each wire
// API: a rule file's pattern appears in the streamed reply, the stream is cut there (the rest
// never reaches stdout or the session), the next request carries the rule's text, and the answer
// given after it is what is printed. Rules fire within their repeat limit, an untrusted project's
// rules are not loaded, and `omp ttsr list|test` say what applies and what fires.
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Turn } from "../support/standin/script.ts";
import { RpcProcess } from "../support/agent-rpc.ts";
import { type ProviderCase, agentTestFile, assistantTextsOf, modelRequests, providerCases, providerTable, readJsonl, runAgent, sessionFiles, toolResultsOf, userTextsOf, workspace } from "../support/agent-harness.ts";

const standin = await agentTestFile();
const anthropic = providerCases()[0]!;

const RULE = `---
description: Never call FORBIDDEN_API
condition: 'FORBIDDEN_API\\('
---
Never call FORBIDDEN_API; call SAFE_API instead.
`;

/** A trusted repo (unless `trusted: false`) holding `.omp/rules/no-forbidden.md` and `files`. */
async function project(files: Record<string, string> = {}, trusted = true) {
  const { home, repo } = workspace({ "README.md": "# demo\n", ".omp/rules/no-forbidden.md": RULE, ...files });
  if (trusted) expect((await runAgent(["trust", repo], { home, cwd: repo })).code).toBe(0);
  return { home, repo };
}

const VIOLATION = "Let me call FORBIDDEN_API(x) now and TAIL_NEVER_SHOWN afterwards.";
/** The violating reply: its pieces arrive slowly, so the cut lands while the rest is still unsent. */
const violating = { text: VIOLATION, eventDelayMs: 150 };

/** `omp -p` with tools against the stand-in playing `script`, its request log cleared first. */
function play(script: Turn[], home: string, repo: string) {
  standin.requests.length = 0;
  standin.setScript(script);
  return runAgent(["-p", "--model", anthropic.model, "do it"], { home, cwd: repo, env: anthropic.env(standin.url) });
}

function run(c: ProviderCase, home: string, repo: string, ...args: string[]) {
  return runAgent(["-p", "--model", c.model, "--no-tools", ...args, "do it"], { home, cwd: repo, env: c.env(standin.url) });
}

describe.each(providerTable())("%s", (_name, c) => {
  test("a rule fires on the streamed pattern: cut there, the rule's text sent, the answer after it printed", async () => {
    const { home, repo } = await project();
    standin.requests.length = 0;
    standin.setScript([violating, { text: "Calling SAFE_API instead." }]);
    const result = await run(c, home, repo);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("Calling SAFE_API instead.");
    expect(result.stdout).not.toContain("FORBIDDEN_API(");
    expect(result.stdout).not.toContain("TAIL_NEVER_SHOWN");
    expect(result.stderr).toContain("rule no-forbidden stopped the answer");
    const requests = modelRequests(standin);
    expect(requests).toHaveLength(2);
    // The stream was really broken off: the stand-in saw its client go before it sent the rest.
    expect(requests[0]!.disconnected).toBe(true);
    const injected = userTextsOf(c.api, requests[1]!.body).join("\n");
    expect(injected).toContain('<system-interrupt reason="rule_violation" rule="no-forbidden"');
    expect(injected).toContain("Never call FORBIDDEN_API; call SAFE_API instead.");
    // contextMode discard: the violating partial reply is not in the conversation sent again.
    expect(assistantTextsOf(c.api, requests[1]!.body).join("")).not.toContain("FORBI");
    const session = readFileSync(sessionFiles(home)[0]!, "utf8");
    expect(session).not.toContain("TAIL_NEVER_SHOWN");
    expect(readJsonl(sessionFiles(home)[0]!).filter((entry) => entry.type === "ttsr_injection").map((entry) => entry.injectedRules)).toEqual([["no-forbidden"]]);
  });
});


describe("limits, trust and front ends", () => {
  test("once per session: the same pattern later in the run, and after a resume, is not cut again", async () => {
    const { home, repo } = await project();
    standin.requests.length = 0;
    standin.setScript([violating, { text: "Still FORBIDDEN_API(y) here." }]);
    const first = await run(anthropic, home, repo);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain("Still FORBIDDEN_API(y) here.");
    expect(modelRequests(standin)).toHaveLength(2);
    standin.requests.length = 0;
    standin.setScript([{ text: "Again FORBIDDEN_API(z) in full." }]);
    const resumed = await run(anthropic, home, repo, "-c");
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toContain("Again FORBIDDEN_API(z) in full.");
    expect(resumed.stderr).not.toContain("stopped the answer");
    expect(modelRequests(standin)).toHaveLength(1);
  });

  test("ttsr.contextMode keep sends the cut reply's text before the rule; ttsr.enabled false watches nothing", async () => {
    const { home, repo } = await project();
    mkdirSync(join(home, ".omp", "agent"), { recursive: true });
    writeFileSync(join(home, ".omp", "agent", "config.yml"), "ttsr:\n  contextMode: keep\n");
    standin.requests.length = 0;
    standin.setScript([violating, { text: "Calling SAFE_API instead." }]);
    const kept = await run(anthropic, home, repo);
    expect(kept.code).toBe(0);
    const second = modelRequests(standin)[1]!.body;
    expect(assistantTextsOf(anthropic.api, second).join("")).toContain("Let me call FORBI");
    expect(JSON.stringify(second)).not.toContain("TAIL_NEVER_SHOWN");

    writeFileSync(join(home, ".omp", "agent", "config.yml"), "ttsr:\n  enabled: false\n");
    standin.requests.length = 0;
    standin.setScript([{ text: VIOLATION }]);
    const off = await run(anthropic, home, repo);
    expect(off.stdout).toContain("TAIL_NEVER_SHOWN");
    expect(modelRequests(standin)).toHaveLength(1);
    expect((await runAgent(["ttsr", "list"], { home, cwd: repo })).stdout).toContain("not watched: ttsr.enabled is false");
  });

  test("an untrusted project's rules are not loaded, and the run says so", async () => {
    const { home, repo } = await project({}, false);
    standin.requests.length = 0;
    standin.setScript([{ text: VIOLATION }]);
    const result = await run(anthropic, home, repo);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("TAIL_NEVER_SHOWN");
    expect(modelRequests(standin)).toHaveLength(1);
    expect(result.stderr).toContain("rules in");
    const listed = await runAgent(["ttsr", "list"], { home, cwd: repo });
    expect(listed.stdout).toContain("no-forbidden.md: the folder is not trusted");
  });

  test("a tool call's arguments are watched: the call is cut before it runs, json mode reports ttsr_triggered", async () => {
    const rsRule = "---\ncondition: 'Box::leak\\('\nscope:\n  - 'tool:write(*.rs)'\n---\nDo not introduce Box::leak; keep ownership explicit.\n";
    const { home, repo } = await project({ ".omp/rules/no-box-leak.md": rsRule });
    standin.requests.length = 0;
    standin.setScript([
      { toolCalls: [{ name: "write", arguments: { path: "src/lib.rs", content: "fn keep() -> &'static str { Box::leak(String::new().into_boxed_str()) }\n" } }], eventDelayMs: 150 },
      { text: "Written without leaks." },
    ]);
    const result = await runAgent(["--mode", "json", "--model", anthropic.model, "write it"], { home, cwd: repo, env: anthropic.env(standin.url) });
    expect(result.code).toBe(0);
    expect(existsSync(join(repo, "src/lib.rs"))).toBe(false);
    const events = result.stdout.split("\n").filter(Boolean).map((line) => JSON.parse(line));
    const fired = events.find((event) => event.type === "ttsr_triggered");
    expect(fired).toMatchObject({ interrupted: true, rules: [{ name: "no-box-leak" }] });
    expect(events.some((event) => event.type === "tool_execution_start")).toBe(false);
    const second = modelRequests(standin)[1]!;
    expect(userTextsOf(anthropic.api, second.body).join("\n")).toContain("Do not introduce Box::leak");
  });

  test("rpc: a ttsr_triggered frame names the rule, the run ends with the answer given after it", async () => {
    const { home, repo } = await project();
    standin.requests.length = 0;
    standin.setScript([violating, { text: "Calling SAFE_API instead." }]);
    const rpc = new RpcProcess(["--model", anthropic.model, "--no-tools"], { home, cwd: repo, env: anthropic.env(standin.url) });
    const end = await rpc.turn("do it");
    expect(end.stopReason).toBe("stop");
    const fired = rpc.frames.find((frame) => frame.type === "ttsr_triggered");
    expect(fired).toMatchObject({ interrupted: true, rules: [{ name: "no-forbidden", path: join(repo, ".omp/rules/no-forbidden.md") }] });
    const texts = rpc.frames.filter((frame) => frame.type === "message_update" && frame.assistantMessageEvent.type === "text_delta").map((frame) => frame.assistantMessageEvent.delta).join("");
    expect(texts).toContain("Calling SAFE_API instead.");
    expect(texts).not.toContain("TAIL_NEVER_SHOWN");
    // Nor in any other frame: the cut reply's message_end holds only what was shown before the match.
    expect(JSON.stringify(rpc.frames)).not.toContain("TAIL_NEVER_SHOWN");
    expect(JSON.stringify(rpc.frames)).not.toContain("FORBIDDEN_API(x)");
    expect(await rpc.close()).toBe(0);
  });

  test("an astCondition fires on the code a write introduces, not on the same words in a comment", async () => {
    const anyRule = "---\nastCondition: '$VALUE as any'\nscope:\n  - 'tool:write(*.ts)'\n---\nNarrow the type instead of asserting any.\n";
    const { home, repo } = await project({ ".omp/rules/no-any.md": anyRule });
    const result = await play(
      [
        { toolCalls: [{ name: "write", arguments: { path: "src/ok.ts", content: "// never write `as any`\nexport const ok = 1 as number;\n" } }] },
        { toolCalls: [{ name: "write", arguments: { path: "src/a.ts", content: "export function f(input: unknown) {\n  return (input) as any;\n}\n" } }] },
        { text: "Narrowed it." },
      ],
      home,
      repo,
    );
    expect(result.code).toBe(0);
    expect(existsSync(join(repo, "src/ok.ts"))).toBe(true);
    expect(existsSync(join(repo, "src/a.ts"))).toBe(false);
    expect(result.stderr).toContain("rule no-any stopped the answer");
    expect(userTextsOf(anthropic.api, modelRequests(standin)[2]!.body).join("\n")).toContain("Narrow the type instead of asserting any.");
  });

  test("interruptMode never: the matched call runs and its result leads with the reminder; prose is told after the reply", async () => {
    const gentle = "---\ncondition: 'FORBIDDEN_API\\('\ninterruptMode: never\n---\nPrefer SAFE_API next time.\n";
    const { home, repo } = await project({ ".omp/rules/no-forbidden.md": gentle });
    const tool = await play([{ toolCalls: [{ name: "write", arguments: { path: "notes.txt", content: "calls FORBIDDEN_API(1)\n" } }] }, { text: "Noted the rule." }], home, repo);
    expect(tool.code).toBe(0);
    expect(readFileSync(join(repo, "notes.txt"), "utf8")).toBe("calls FORBIDDEN_API(1)\n");
    expect(tool.stderr).toContain("rule no-forbidden matched; the model is reminded of it");
    const result = toolResultsOf(anthropic.api, modelRequests(standin)[1]!.body)[0]!;
    expect(result.text).toStartWith('<system-reminder reason="rule_violation" rule="no-forbidden"');
    expect(result.text).toContain("Prefer SAFE_API next time.");

    const other = await project({ ".omp/rules/no-forbidden.md": gentle });
    standin.requests.length = 0;
    standin.setScript([{ text: "I used FORBIDDEN_API(2) and finished." }, { text: "Switching to SAFE_API." }]);
    const prose = await run(anthropic, other.home, other.repo);
    expect(prose.code).toBe(0);
    expect(prose.stdout).toContain("I used FORBIDDEN_API(2) and finished.");
    expect(prose.stdout).toContain("Switching to SAFE_API.");
    const requests = modelRequests(standin);
    expect(requests).toHaveLength(2);
    expect(requests[0]!.disconnected).toBeFalsy();
    expect(userTextsOf(anthropic.api, requests[1]!.body).join("\n")).toContain("Prefer SAFE_API next time.");
  });

  test("rule:// reads a listed rule; Claude Code's .claude/rules files are loaded too", async () => {
    const { home, repo } = await project({ ".claude/rules/style.md": "---\npaths:\n  - 'src/**/*.ts'\n---\nUse strict types in TypeScript.\n" });
    const result = await play([{ toolCalls: [{ name: "read", arguments: { path: "rule://style" } }] }, { text: "ok" }], home, repo);
    expect(result.code).toBe(0);
    const requests = modelRequests(standin);
    expect(JSON.stringify(requests[0]!.body.system)).toContain("rule://");
    const read = toolResultsOf(anthropic.api, requests[1]!.body)[0]!;
    expect(read.text).toContain("Use strict types in TypeScript.");
  });
});

describe("omp ttsr", () => {
  test("list names each rule with its file and condition; test exits 0 when a rule fires, 1 when none, 2 on bad usage", async () => {
    const { home, repo } = await project({ ".omp/rules/broken.md": "---\ncondition: '('\n---\nx\n" });
    const listed = await runAgent(["ttsr", "list"], { home, cwd: repo });
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain("no-forbidden");
    expect(listed.stdout).toContain("FORBIDDEN_API\\(");
    expect(listed.stdout).toContain("broken.md: not watched: no condition compiles");
    const fires = await runAgent(["ttsr", "test", "then FORBIDDEN_API(1)"], { home, cwd: repo });
    expect(fires.code).toBe(0);
    expect(fires.stdout).toContain("no-forbidden");
    const quiet = await runAgent(["ttsr", "test", "--verbose", "SAFE_API(1)"], { home, cwd: repo });
    expect(quiet.code).toBe(1);
    expect(quiet.stdout).toContain("not no-forbidden: no condition matches");
    const piped = await runAgent(["ttsr", "test", "--json", "-"], { home, cwd: repo, stdin: "x FORBIDDEN_API( y" });
    expect(JSON.parse(piped.stdout).fired.map((rule: { name: string }) => rule.name)).toEqual(["no-forbidden"]);
    const sample = join(repo, "sample.txt");
    writeFileSync(sample, "FORBIDDEN_API(2)");
    const file = await runAgent(["ttsr", "test", "--rule", join(repo, ".omp/rules/no-forbidden.md"), "--file", sample], { home, cwd: repo });
    expect(file.code).toBe(0);
    const anyRule = join(repo, "no-any.md");
    writeFileSync(anyRule, "---\nastCondition: '$VALUE as any'\nscope:\n  - 'tool:edit(*.ts)'\n---\nNarrow the type instead.\n");
    const ast = (code: string, path = "src/a.ts") => runAgent(["ttsr", "test", "--rule", anyRule, "--tool", "edit", "--path", path, code], { home, cwd: repo });
    expect((await ast("const x = (input) as any;")).code).toBe(0);
    expect((await ast("const x = input as string; // as any")).code).toBe(1);
    expect((await ast("const x = (input) as any;", "src/a.py")).code).toBe(1);
    writeFileSync(join(repo, "bad.ts"), "call(FORBIDDEN_API(3));\n");
    writeFileSync(join(repo, ".gitignore"), "ignored.ts\n");
    writeFileSync(join(repo, "ignored.ts"), "FORBIDDEN_API(4)\n");
    const scan = await runAgent(["ttsr", "scan"], { home, cwd: repo });
    expect(scan.code).toBe(0);
    expect(scan.stdout.trim().split("\n").sort()).toEqual(["bad.ts: no-forbidden", "sample.txt: no-forbidden"]);
    expect((await runAgent(["ttsr", "scan", "README.md"], { home, cwd: repo })).code).toBe(1);
    const bad = await runAgent(["ttsr", "test", "--source", "nowhere", "x"], { home, cwd: repo });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--source is text, thinking or tool");
  });
});
