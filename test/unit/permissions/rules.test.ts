// Claude Code's permission rules against omp's tool calls: Bash patterns judged per command of a
// compound line, path rules in gitignore style, domains, MCP servers, the allow side that needs
// every command of a line, and lenient settings JSON.
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { parseLenientJson } from "../../../core/fs/lenient-json.ts";
import { commandsOf, isReadOnlyCommand } from "../../../core/permissions/bash-rules.ts";
import { bashAllowed, parseRule, pathMatches, ruleMatches } from "../../../core/permissions/rules.ts";
import { homeDir } from "../../../core/paths.ts";

const cwd = "/work/project";
const rule = (text: string) => ({ ...parseRule(text)!, base: cwd });
const bash = (text: string, command: string) => ruleMatches(rule(text), "bash", { command }, cwd);

describe("Bash rules", () => {
  test("a deny pattern catches the command anywhere in the line", () => {
    expect(bash("Bash(rm:*)", "rm -rf x")).toBe(true);
    expect(bash("Bash(rm:*)", "echo hi && rm -rf x")).toBe(true);
    expect(bash("Bash(rm:*)", "ls; rm x")).toBe(true);
    expect(bash("Bash(rm:*)", "cat a | xargs rm")).toBe(true);
    expect(bash("Bash(rm:*)", "sudo -u root rm -rf /")).toBe(true);
    expect(bash("Bash(rm:*)", "FOO=1 rm x")).toBe(true);
    expect(bash("Bash(rm:*)", "env -i rm x")).toBe(true);
    expect(bash("Bash(rm:*)", "timeout 5 nice -n 10 rm x")).toBe(true);
    expect(bash("Bash(rm:*)", "(cd /tmp && rm x)")).toBe(true);
    expect(bash("Bash(rm:*)", "echo $(rm x)")).toBe(true);
    expect(bash("Bash(rm:*)", "bash -c 'rm -rf x'")).toBe(true);
    expect(bash("Bash(rm:*)", "rmdir x")).toBe(false);
    expect(bash("Bash(rm:*)", "echo rm")).toBe(false);
    expect(bash("Bash", "anything")).toBe(true);
    expect(bash("Bash(npm run test)", "npm run test")).toBe(true);
    expect(bash("Bash(npm run test)", "npm run test -- -u")).toBe(false);
  });

  test("allow needs every command of the line; read-only commands count only where asked", () => {
    expect(bashAllowed(["Bash(git add:*)", "Bash(git commit:*)"], "git add . && git commit -m x")).toBe(true);
    expect(bashAllowed(["Bash(git add:*)"], "git add . && rm -rf /")).toBe(false);
    expect(bashAllowed(["Bash(git add:*)"], "git diff HEAD")).toBe(false);
    expect(bashAllowed(["Bash(git add:*)"], "git diff HEAD", { readOnly: true })).toBe(true);
    expect(bashAllowed([], "git log --oneline -10", { readOnly: true })).toBe(true);
    expect(bashAllowed([], "git branch -D main", { readOnly: true })).toBe(false);
    expect(bashAllowed([], "git log > out.txt", { readOnly: true })).toBe(false);
    expect(isReadOnlyCommand("git branch --show-current")).toBe(true);
    // Searches, unless a flag runs or writes something (plan mode's bash relies on this).
    expect(bashAllowed([], "grep -rn TODO src | head -20", { readOnly: true })).toBe(true);
    expect(isReadOnlyCommand("rg -n 'fn main' --type rust")).toBe(true);
    expect(isReadOnlyCommand("rg --pre ./evil.sh x")).toBe(false);
    expect(isReadOnlyCommand("rg --pre=./evil.sh x")).toBe(false);
    expect(isReadOnlyCommand("find . -name '*.ts' -newer package.json")).toBe(true);
    expect(isReadOnlyCommand("find . -name '*.tmp' -delete")).toBe(false);
    expect(isReadOnlyCommand("find . -exec rm {} ;")).toBe(false);
    expect(isReadOnlyCommand("find . -fprint out.txt")).toBe(false);
    // Listings that write when told to: read-only only without those words (checkpoints skip read-only commands).
    expect(isReadOnlyCommand("tree -L 2 src")).toBe(true);
    expect(isReadOnlyCommand("tree -o out.txt")).toBe(false);
    expect(isReadOnlyCommand("tree -aho out.txt")).toBe(false);
    expect(isReadOnlyCommand("date +%s")).toBe(true);
    expect(isReadOnlyCommand("date -s 2020-01-01")).toBe(false);
    expect(isReadOnlyCommand("file -b package.json")).toBe(true);
    expect(isReadOnlyCommand("file -C -m magic")).toBe(false);
    expect(isReadOnlyCommand("hostname")).toBe(true);
    expect(isReadOnlyCommand("hostname -f")).toBe(true);
    expect(isReadOnlyCommand("hostname evil")).toBe(false);
    expect(commandsOf("a && b | c")).toEqual(["a", "b", "c"]);
  });
});

describe("path rules", () => {
  test("gitignore-style anchors: ./ and dir/ from the working folder, / from the settings' project, // absolute, ~ home, bare names anywhere", () => {
    expect(pathMatches("./.env", join(cwd, ".env"), cwd, cwd)).toBe(true);
    expect(pathMatches("./.env", join(cwd, "sub/.env"), cwd, cwd)).toBe(false);
    expect(pathMatches(".env", join(cwd, "sub/.env"), cwd, cwd)).toBe(true);
    expect(pathMatches("*.key", "/elsewhere/a.key", cwd, cwd)).toBe(true);
    expect(pathMatches("src/**", join(cwd, "src/a/b.ts"), cwd, cwd)).toBe(true);
    expect(pathMatches("src/**/*.ts", join(cwd, "src/a/b.ts"), cwd, cwd)).toBe(true);
    expect(pathMatches("src/**/*.ts", join(cwd, "lib/a.ts"), cwd, cwd)).toBe(false);
    expect(pathMatches("/secrets", "/base/secrets/x", cwd, "/base")).toBe(true);
    expect(pathMatches("//etc/passwd", "/etc/passwd", cwd, cwd)).toBe(true);
    expect(pathMatches("~/secrets/**", join(homeDir(), "secrets/a/b"), cwd, cwd)).toBe(true);
    expect(ruleMatches(rule("Read(./.env)"), "grep", { pattern: "x", path: ".env" }, cwd)).toBe(true);
    expect(ruleMatches(rule("Edit(./.env)"), "write", { path: ".env", content: "" }, cwd)).toBe(true);
    expect(ruleMatches(rule("Edit(./.env)"), "read", { path: ".env" }, cwd)).toBe(false);
  });

  test("domains, MCP servers, subagents, bare names", () => {
    expect(ruleMatches(rule("WebFetch(domain:example.com)"), "web_fetch", { url: "https://docs.example.com/x" }, cwd)).toBe(true);
    expect(ruleMatches(rule("WebFetch(domain:example.com)"), "web_fetch", { url: "https://example.org/" }, cwd)).toBe(false);
    expect(ruleMatches(rule("mcp__github"), "mcp__github__create_issue", {}, cwd)).toBe(true);
    expect(ruleMatches(rule("mcp__github__create_issue"), "mcp__github__create_issue", {}, cwd)).toBe(true);
    expect(ruleMatches(rule("mcp__github__create_issue"), "mcp__github__delete_repo", {}, cwd)).toBe(false);
    expect(ruleMatches(rule("Task(reviewer)"), "task", { subagent_type: "reviewer" }, cwd)).toBe(true);
    expect(ruleMatches(rule("Read"), "find", { pattern: "*" }, cwd)).toBe(true);
    expect(parseRule("Bash(*)")).toEqual({ tool: "Bash" });
    expect(parseRule("not a rule!")).toBeUndefined();
  });
});

test("settings JSON as hand-edited: comments, trailing commas and junk after the object", () => {
  expect(parseLenientJson('{"a": 1}')).toEqual({ a: 1 });
  expect(parseLenientJson('\uFEFF{\n // c\n "a": [1, 2,], /* x */ "b": "//not a comment",\n}\ntrailing junk')).toEqual({ a: [1, 2], b: "//not a comment" });
  expect(() => parseLenientJson("{not json")).toThrow();
});
