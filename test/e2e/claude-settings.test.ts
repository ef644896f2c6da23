// Claude Code's settings files, unchanged, run by the compiled binary around a scripted model:
// hooks from .claude/settings.json in the one hooks registry, permission rules (deny holding under
// --approval-mode yolo, compound lines judged command by command, ask and allow), env and
// additionalDirectories, trust, and `omp extensions` naming where each rule and hook came from.
// Hook features on the way: systemMessage, `if`, async and asyncRewake, PostToolUseFailure,
// Claude's permission_mode values and absolute file paths.
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setFolderTrust } from "../../core/trust/folder-trust.ts";
import { agentTestFile, modelRequests, providerCases, runAgent, toolResultsOf, userTextsOf, workspace } from "../support/agent-harness.ts";
import { script } from "../support/hook-scripts.ts";
import { runOmp, tempDir } from "../support/omp.ts";

const standin = await agentTestFile();
const provider = providerCases()[0]!;
const api = provider.api;

function settings(dir: string, name: string, value: unknown): string {
  const path = join(dir, ".claude", name);
  mkdirSync(join(dir, ".claude"), { recursive: true });
  writeFileSync(path, typeof value === "string" ? value : JSON.stringify(value, null, 2));
  return path;
}

const trust = (home: string, repo: string) => setFolderTrust(repo, true, { OMP_AGENT_DIR: join(home, ".omp", "agent") });
const command = (cmd: string, extra: Record<string, unknown> = {}) => ({ type: "command", command: cmd, ...extra });

async function run(home: string, repo: string, calls: { name: string; arguments: Record<string, unknown> }[], flags: string[] = []) {
  standin.requests.length = 0;
  standin.setScript([{ toolCalls: calls.map((call, i) => ({ id: `c${i + 1}`, ...call })) }, { text: "done" }]);
  const result = await runAgent(["-p", "--model", provider.model, ...flags, "go"], { home, cwd: repo, env: provider.env(standin.url) });
  const bodies = modelRequests(standin).map((r) => r.body);
  return { ...result, bodies, results: bodies[1] ? toolResultsOf(api, bodies[1]) : [] };
}

describe("hooks in .claude/settings.json", () => {
  test("a PreToolUse hook there blocks a command once the folder is trusted; untrusted, it is listed as skipped and not run", async () => {
    const { home, repo } = workspace();
    const ran = join(home, "ran");
    const guard = script(home, "guard.sh", `touch ${ran}\necho "no rm in this repo" >&2\nexit 2`);
    settings(repo, "settings.json", { hooks: { PreToolUse: [{ matcher: "Bash", hooks: [command(guard)] }] } });

    const untrusted = await run(home, repo, [{ name: "bash", arguments: { command: "touch marker" } }], ["--approval-mode", "yolo"]);
    expect(existsSync(ran)).toBe(false);
    expect(existsSync(join(repo, "marker"))).toBe(true);
    expect(untrusted.stderr).toContain("is not trusted");

    trust(home, repo);
    const trusted = await run(home, repo, [{ name: "bash", arguments: { command: "touch marker2" } }], ["--approval-mode", "yolo"]);
    expect(existsSync(ran)).toBe(true);
    expect(existsSync(join(repo, "marker2"))).toBe(false);
    expect(trusted.results[0]!.text).toBe("no rm in this repo");
  });

  test("systemMessage reaches the user (stderr), the hook sees Claude's permission_mode and an absolute file_path; `if` picks the calls", async () => {
    const { home, repo } = workspace();
    const seen = join(home, "seen.json");
    const gitOnly = join(home, "git-only");
    const warnJson = JSON.stringify({ systemMessage: "heads up: README is generated" });
    settings(home, "settings.json", {
      hooks: {
        PreToolUse: [
          { matcher: "Read", hooks: [command(`cat > ${seen}; printf '%s' '${warnJson}'`)] },
          { matcher: "Bash", hooks: [command(`touch ${gitOnly}`, { if: "Bash(git *)" })] },
        ],
      },
    });
    const result = await run(home, repo, [{ name: "read", arguments: { path: "README.md" } }, { name: "bash", arguments: { command: "echo not git" } }], ["--approval-mode", "yolo"]);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain("heads up: README is generated");
    const stdin = JSON.parse(readFileSync(seen, "utf8"));
    expect(stdin.permission_mode).toBe("bypassPermissions");
    expect(stdin.tool_input.file_path).toBe(join(repo, "README.md"));
    expect(existsSync(gitOnly)).toBe(false);
    await run(home, repo, [{ name: "bash", arguments: { command: "git status --short" } }], ["--approval-mode", "yolo"]);
    expect(existsSync(gitOnly)).toBe(true);
  });

  test("an async hook does not hold up the turn; PostToolUseFailure runs for a failed call", async () => {
    const { home, repo } = workspace();
    const slow = join(home, "slow-done");
    const failed = join(home, "failure.json");
    settings(home, "settings.json", {
      hooks: {
        PostToolUse: [{ matcher: "Bash", hooks: [command(`sleep 10; touch ${slow}`, { async: true })] }],
        PostToolUseFailure: [{ matcher: "Read", hooks: [command(`cat > ${failed}`)] }],
      },
    });
    const result = await run(home, repo, [{ name: "bash", arguments: { command: "echo hi" } }, { name: "read", arguments: { path: "missing.txt" } }], ["--approval-mode", "yolo"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("done");
    // The run is over, and the background hook is still sleeping.
    expect(existsSync(slow)).toBe(false);
    const failure = JSON.parse(readFileSync(failed, "utf8"));
    expect(failure).toMatchObject({ hook_event_name: "PostToolUseFailure", tool_name: "Read" });
    expect(failure.error).toContain("missing.txt");
  });

  test("asyncRewake: a background hook's exit 2 reaches the model before it stops", async () => {
    const { home, repo } = workspace();
    settings(home, "settings.json", {
      hooks: { PostToolUse: [{ matcher: "Bash", hooks: [command(`sleep 1; echo "lint found 3 errors" >&2; exit 2`, { asyncRewake: true })] }] },
    });
    standin.requests.length = 0;
    standin.setScript([{ toolCalls: [{ id: "c1", name: "bash", arguments: { command: "echo hi" } }] }, { text: "done" }, { text: "fixed them" }]);
    const result = await runAgent(["-p", "--model", provider.model, "--approval-mode", "yolo", "go"], { home, cwd: repo, env: provider.env(standin.url) });
    expect(result.code).toBe(0);
    const bodies = modelRequests(standin).map((r) => r.body);
    expect(bodies.length).toBe(3);
    expect(JSON.stringify(bodies[2])).toContain("lint found 3 errors");
  });

  test("UserPromptExpansion: a slash command's expansion gets the hook's context, or is blocked with its reason", async () => {
    const { home, repo } = workspace();
    const seen = join(home, "expansion.json");
    mkdirSync(join(home, ".claude", "commands"), { recursive: true });
    writeFileSync(join(home, ".claude", "commands", "greet.md"), "Say hello to $ARGUMENTS.\n");
    writeFileSync(join(home, ".claude", "commands", "deploy.md"), "Deploy everything.\n");
    const context = JSON.stringify({ hookSpecificOutput: { hookEventName: "UserPromptExpansion", additionalContext: "greetings are formal here" } });
    settings(home, "settings.json", {
      hooks: {
        UserPromptExpansion: [
          { matcher: "greet", hooks: [command(`cat > ${seen}; printf '%s' '${context}'`)] },
          { matcher: "deploy", hooks: [command(`echo "deploys are frozen" >&2; exit 2`)] },
        ],
      },
    });
    standin.requests.length = 0;
    standin.setScript([{ text: "Good day, Ada." }]);
    const greeted = await runAgent(["-p", "--model", provider.model, "/greet Ada"], { home, cwd: repo, env: provider.env(standin.url) });
    expect(greeted.code).toBe(0);
    const text = userTextsOf(api, modelRequests(standin)[0]!.body).join("\n");
    expect(text).toContain("greetings are formal here");
    expect(text).toContain("Say hello to Ada.");
    expect(JSON.parse(readFileSync(seen, "utf8"))).toMatchObject({ hook_event_name: "UserPromptExpansion", command_name: "greet", command_args: "Ada", prompt: "Say hello to Ada." });
    standin.requests.length = 0;
    const blocked = await runAgent(["-p", "--model", provider.model, "/deploy"], { home, cwd: repo, env: provider.env(standin.url) });
    expect(blocked.code).toBe(1);
    expect(blocked.stderr).toContain("/deploy was blocked by a UserPromptExpansion hook: deploys are frozen");
    expect(modelRequests(standin).length).toBe(0);
  });
});

test("PermissionRequest hooks decide a call that needs approval, even with nobody to ask", async () => {
  const { home, repo } = workspace();
  const allow = JSON.stringify({ hookSpecificOutput: { hookEventName: "PermissionRequest", decision: { behavior: "allow" } } });
  settings(home, "settings.json", {
    hooks: {
      PermissionRequest: [
        { matcher: "Bash", hooks: [command(`printf '%s' '${allow}'`, { if: "Bash(touch approved)" })] },
        { matcher: "Bash", hooks: [command(`echo "not on Fridays" >&2; exit 2`, { if: "Bash(touch refused)" })] },
      ],
    },
  });
  const result = await run(home, repo, [{ name: "bash", arguments: { command: "touch approved" } }, { name: "bash", arguments: { command: "touch refused" } }, { name: "bash", arguments: { command: "touch unasked" } }], ["--approval-mode", "write"]);
  expect(result.code).toBe(0);
  expect(existsSync(join(repo, "approved"))).toBe(true);
  expect(existsSync(join(repo, "refused"))).toBe(false);
  expect(result.results[1]!.text).toContain("a PermissionRequest hook denied it. Reason: not on Fridays");
  // No hook decided: the approval mode's answer (nobody to ask in print mode).
  expect(existsSync(join(repo, "unasked"))).toBe(false);
});

test("StopFailure hooks hear of a run that ended on a provider error", async () => {
  const { home, repo } = workspace();
  const seen = join(home, "failure.json");
  settings(home, "settings.json", { hooks: { StopFailure: [{ hooks: [command(`cat > ${seen}`)] }] } });
  standin.setScript([{ status: 400, message: "prompt is malformed" }]);
  const result = await runAgent(["-p", "--model", provider.model, "go"], { home, cwd: repo, env: provider.env(standin.url) });
  expect(result.code).not.toBe(0);
  const stdin = JSON.parse(readFileSync(seen, "utf8"));
  expect(stdin).toMatchObject({ hook_event_name: "StopFailure", error: "invalid_request" });
  expect(stdin.error_details).toContain("prompt is malformed");
});

test("a settings file that cannot be used is one warning naming it; the run and the other files go on", async () => {
  const { home, repo } = workspace();
  settings(home, "settings.json", '{"permissions": {"deny": "Bash(rm:*)"}}');
  trust(home, repo);
  settings(repo, "settings.json", "{ this is not json");
  settings(repo, "settings.local.json", { permissions: { deny: ["Bash(rm:*)", 42] } });
  const result = await run(home, repo, [{ name: "bash", arguments: { command: "rm README.md" } }], ["--approval-mode", "yolo"]);
  expect(result.code).toBe(0);
  expect(result.stderr).toContain("~/.claude/settings.json: permissions.deny:");
  expect(result.stderr).toContain(".claude/settings.json: not readable JSON");
  expect(result.stderr).toContain("permissions.deny: 42 is not a rule");
  expect(existsSync(join(repo, "README.md"))).toBe(true);
});

describe("permission rules", () => {
  test("deny Bash(rm:*) and Read(./.env) hold under --approval-mode yolo, through && ; | and wrappers", async () => {
    const { home, repo } = workspace({ ".env": "SECRET_TOKEN=hunter2\n", "keep/a.txt": "a\n", "README.md": "# demo\n" });
    trust(home, repo);
    settings(repo, "settings.json", { permissions: { deny: ["Bash(rm:*)", "Read(./.env)"] } });
    const result = await run(
      home,
      repo,
      [
        { name: "bash", arguments: { command: "rm -rf keep" } },
        { name: "bash", arguments: { command: "echo hi && rm -rf keep" } },
        { name: "bash", arguments: { command: "true; sudo rm -rf keep | cat" } },
        { name: "read", arguments: { path: ".env" } },
        { name: "read", arguments: { path: "README.md" } },
      ],
      ["--approval-mode", "yolo"],
    );
    expect(result.code).toBe(0);
    expect(existsSync(join(repo, "keep", "a.txt"))).toBe(true);
    const texts = result.results.map((r) => r.text);
    for (const text of texts.slice(0, 3)) expect(text).toContain("Bash(rm:*)");
    expect(texts[3]).toContain("Read(./.env)");
    expect(JSON.stringify(result.bodies[1])).not.toContain("hunter2");
    expect(texts[4]).toContain("# demo");

    // An @mention of the file is held to the same rule: sent as text, never attached.
    standin.requests.length = 0;
    standin.setScript([{ text: "ok" }]);
    const mention = await runAgent(["-p", "--model", provider.model, "summarise @.env please"], { home, cwd: repo, env: provider.env(standin.url) });
    expect(mention.code).toBe(0);
    expect(JSON.stringify(modelRequests(standin)[0]!.body)).not.toContain("hunter2");
    const argument = await runAgent(["-p", "--model", provider.model, "summarise", "@.env"], { home, cwd: repo, env: provider.env(standin.url) });
    expect(argument.code).toBe(2);
    expect(argument.stderr).toContain("@.env: reading it is denied by the permission rule Read(./.env)");
  });

  test("an untrusted project's deny rules still hold; its allow rules do not", async () => {
    const { home, repo } = workspace();
    settings(repo, "settings.json", { permissions: { deny: ["Bash(rm:*)"], allow: ["Bash(touch:*)"] } });
    const result = await run(home, repo, [{ name: "bash", arguments: { command: "rm README.md" } }, { name: "bash", arguments: { command: "touch made" } }], ["--approval-mode", "write"]);
    expect(existsSync(join(repo, "README.md"))).toBe(true);
    expect(result.results[0]!.text).toContain("Bash(rm:*)");
    // Write mode, print: nobody to approve, and the untrusted allow rule is not taken.
    expect(existsSync(join(repo, "made"))).toBe(false);
  });

  test("allow rules skip the approval for exactly what they name; ask rules ask even under yolo; local settings add to the project's", async () => {
    const { home, repo } = workspace();
    trust(home, repo);
    settings(repo, "settings.json", { permissions: { allow: ["Bash(touch:*)", "Edit(src/**)"] } });
    // settings.local.json with a trailing comma and a comment, as hand-edited files have them.
    settings(repo, "settings.local.json", '{\n  // mine\n  "permissions": { "ask": ["Bash(touch asked)"], },\n}\n');
    const result = await run(home, repo, [
      { name: "bash", arguments: { command: "touch allowed" } },
      { name: "bash", arguments: { command: "touch allowed2 && curl -s example.invalid" } },
      { name: "write", arguments: { path: "src/new.sh", content: "x\n" } },
      { name: "write", arguments: { path: "other.txt", content: "x\n" } },
      { name: "bash", arguments: { command: "touch asked" } },
    ], ["--approval-mode", "write"]);
    expect(result.code).toBe(0);
    expect(existsSync(join(repo, "allowed"))).toBe(true);
    expect(existsSync(join(repo, "allowed2"))).toBe(false);
    expect(existsSync(join(repo, "src", "new.sh"))).toBe(true);
    expect(existsSync(join(repo, "other.txt"))).toBe(false);
    expect(existsSync(join(repo, "asked"))).toBe(false);
    const yolo = await run(home, repo, [{ name: "bash", arguments: { command: "touch asked" } }], ["--approval-mode", "yolo"]);
    expect(existsSync(join(repo, "asked"))).toBe(false);
    expect(yolo.results[0]!.text).toContain("Bash(touch asked)");
  });

  test("env and additionalDirectories apply; `omp extensions` lists each rule and hook with its file", async () => {
    const { home, repo } = workspace();
    const outside = tempDir("omp-outside-");
    writeFileSync(join(outside, "notes.txt"), "outside notes\n");
    const user = settings(home, "settings.json", { env: { FROM_CLAUDE_SETTINGS: "yes-from-settings" }, permissions: { additionalDirectories: [outside], deny: ["WebFetch(domain:evil.example)"] } });
    trust(home, repo);
    const project = settings(repo, "settings.json", { hooks: { Stop: [{ hooks: [command("true")] }] }, permissions: { deny: ["Read(~/secrets/**)"] }, model: "ignored-key" });
    const result = await run(home, repo, [
      { name: "bash", arguments: { command: "echo $FROM_CLAUDE_SETTINGS" } },
      { name: "read", arguments: { path: join(outside, "notes.txt") } },
    ], ["--approval-mode", "write", "--tools", "read"]);
    expect(result.results[1]!.text).toContain("outside notes");

    const bash = await run(home, repo, [{ name: "bash", arguments: { command: "echo $FROM_CLAUDE_SETTINGS" } }], ["--approval-mode", "yolo"]);
    expect(bash.results[0]!.text).toContain("yes-from-settings");

    const listing = await runOmp(["extensions", "--json"], { home, cwd: repo });
    expect(listing.code).toBe(0);
    const items = JSON.parse(listing.stdout).items ?? JSON.parse(listing.stdout);
    const find = (kind: string, name: string) => (items as any[]).find((item) => item.kind === kind && item.name === name);
    expect(find("permission", "deny WebFetch(domain:evil.example)").path).toBe(user);
    expect(find("permission", "deny Read(~/secrets/**)").path).toBe(project);
    expect(find("hook", "Stop *").path).toBe(project);
  });
});
