import { describe, expect, test } from "bun:test";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ApprovalGate, type ApprovalRequest } from "../../../core/tools/approval.ts";
import { projectRoot } from "../../../core/fs/project-root.ts";
import { PathScope } from "../../../core/tools/path-scope.ts";
import { tempDir } from "../../support/temp.ts";
import { PathPolicy } from "../../../core/sandbox/path-policy.ts";
import { buildPolicy } from "../../../core/sandbox/policy.ts";

function layout() {
  const root = tempDir("omp-scope-");
  const repo = join(root, "repo");
  const outside = join(root, "outside");
  mkdirSync(join(repo, ".git"), { recursive: true });
  mkdirSync(join(repo, "src", "deep"), { recursive: true });
  mkdirSync(outside);
  writeFileSync(join(outside, "secret.txt"), "s");
  symlinkSync(outside, join(repo, "link-out"));
  symlinkSync(join(outside, "not-yet.txt"), join(repo, "dangling"));
  symlinkSync(join(repo, "src"), join(repo, "link-in"));
  return { root, repo, outside };
}

const read = { name: "read", effect: "read" as const };
const write = { name: "write", effect: "write" as const };

describe("PathScope", () => {
  test("the project is the repository around the working directory", () => {
    const { repo, root } = layout();
    expect(projectRoot(join(repo, "src", "deep"))).toBe(repo);
    expect(projectRoot(root)).toBe(root);
  });

  test("inside, outside, through symlinks both ways, dangling, ~, and --add-dir", () => {
    const { repo, outside } = layout();
    const scope = new PathScope(join(repo, "src"));
    expect(scope.outside("read", { path: "deep/x.ts" })).toEqual([]);
    expect(scope.outside("read", { path: "../README.md" })).toEqual([]);
    expect(scope.outside("write", { path: join(repo, "link-in", "new.ts") })).toEqual([]);
    expect(scope.outside("read", { path: join(outside, "secret.txt") })).toEqual([join(outside, "secret.txt")]);
    expect(scope.outside("write", { path: join(repo, "link-out", "new.txt") })).toEqual([join(repo, "link-out", "new.txt")]);
    expect(scope.outside("write", { path: join(repo, "dangling") })).toEqual([join(repo, "dangling")]);
    expect(scope.outside("ls", { path: "../.." })).toHaveLength(1);
    expect(scope.outside("bash", { command: "ls", cwd: outside })).toEqual([outside]);
    expect(scope.outside("bash", { command: "ls" })).toEqual([]);
    expect(scope.outside("todo", { path: outside })).toEqual([]);
    expect(scope.outside("ast_edit", { pattern: "a($X)", rewrite: "b($X)", path: outside, apply: true })).toEqual([outside]);
    expect(scope.outside("lsp", { op: "rename", path: join(outside, "secret.txt"), apply: true })).toEqual([join(outside, "secret.txt")]);
    expect(new PathScope(repo, [outside]).outside("read", { path: join(outside, "secret.txt") })).toEqual([]);
  });
});

describe("ApprovalGate with a scope", () => {
  test("under write, a read outside asks; inside it does not; yolo never asks", async () => {
    const { repo, outside } = layout();
    const asked: ApprovalRequest[] = [];
    const gate = new ApprovalGate("write", async (request) => (asked.push(request), { allow: true }), new PathScope(repo));
    expect(await gate.check(read, { path: "src/a.ts" })).toEqual({ allow: true });
    expect(asked).toEqual([]);
    expect(await gate.check(read, { path: join(outside, "secret.txt") })).toEqual({ allow: true });
    expect(asked.map((r) => [r.toolName, r.outside, r.summary])).toEqual([["read", [join(outside, "secret.txt")], `${join(outside, "secret.txt")} (outside the project)`]]);
    const yolo = new ApprovalGate("yolo", async () => ({ allow: false }), new PathScope(repo));
    expect(await yolo.check(write, { path: join(outside, "x") })).toEqual({ allow: true });
  });

  test("without an approver, an outside call is refused with the way to allow it", async () => {
    const { repo, outside } = layout();
    const outcome = await new ApprovalGate("write", undefined, new PathScope(repo)).check(read, { path: join(outside, "secret.txt") });
    expect(outcome.allow).toBe(false);
    expect(!outcome.allow && outcome.message).toContain("is outside the project");
    expect(!outcome.allow && outcome.message).toContain("--add-dir");
  });

  test("'always' for a tool inside the project does not cover the same tool outside it", async () => {
    const { repo, outside } = layout();
    const asked: ApprovalRequest[] = [];
    const gate = new ApprovalGate("write", async (request) => (asked.push(request), { allow: !request.outside, remember: true }), new PathScope(repo));
    expect(await gate.check(write, { path: "a.txt" })).toEqual({ allow: true });
    expect(await gate.check(write, { path: "b.txt" })).toEqual({ allow: true });
    expect((await gate.check(write, { path: join(outside, "c.txt") })).allow).toBe(false);
    expect((await gate.check(write, { path: join(outside, "d.txt") })).allow).toBe(false);
    expect(asked.length).toBe(2);
  });
});

describe("ApprovalGate with the sandbox policy", () => {
  /** A home beside a repository, and the gate a session builds with its policy. */
  function guarded(mode: "yolo" | "write", approver?: (request: ApprovalRequest) => Promise<{ allow: boolean }>) {
    const { root, repo } = layout();
    const home = join(root, "home");
    mkdirSync(join(home, ".ssh"), { recursive: true });
    writeFileSync(join(home, ".ssh", "id_rsa"), "KEY");
    const settings = { mode: "workspace-write" as const, network: "off" as const, writable: [], denyRead: [], envAllow: [], allowSockets: [] };
    const policy = new PathPolicy(buildPolicy({ settings, cwd: repo, addDirs: [], home, env: {} }), repo);
    return { home, repo, gate: new ApprovalGate(mode, approver, new PathScope(repo, [], policy)) };
  }

  test("the deny-list refuses in yolo too; a write outside the writable roots asks in yolo; one inside does not", async () => {
    const asked: ApprovalRequest[] = [];
    const { home, gate } = guarded("yolo", async (request) => (asked.push(request), { allow: true }));
    expect(gate.pathRefusal("read", { path: join(home, ".ssh", "id_rsa") })).toContain("deny-list");
    expect(gate.pathRefusal("read", { path: "a.txt" })).toBeUndefined();
    expect(await gate.check(write, { path: "inside.txt" })).toEqual({ allow: true });
    expect(asked).toEqual([]);
    expect(await gate.check(write, { path: join(home, ".bashrc") })).toEqual({ allow: true });
    expect(asked.map((request) => request.outside)).toEqual([[join(home, ".bashrc")]]);
    expect(asked[0]!.summary).toContain("outside the sandbox's writable roots");
  });

  test("print mode refuses naming the ways to allow it; a write the call's approval granted goes ahead once, the next asks again", async () => {
    const { home, gate: alone } = guarded("yolo");
    const refused = await alone.check(write, { path: join(home, ".bashrc") });
    expect(!refused.allow && refused.message).toContain("--add-dir");
    expect(!refused.allow && refused.message).toContain("--sandbox off");
    let asks = 0;
    const { repo, gate } = guarded("yolo", async () => (asks++, { allow: true }));
    const verdict = gate.paths!.check(join(repo, ".git", "config"), "write");
    expect(verdict.kind).toBe("needs-approval");
    if (verdict.kind !== "needs-approval") return;
    expect(await gate.check(write, { path: join(repo, ".git", "config") }, undefined, "call_1")).toEqual({ allow: true });
    // Another call's write of the same path is not covered by that grant.
    expect(await gate.authorizeWrite(verdict, "call_2")).toEqual({ allow: true });
    expect(asks).toBe(2);
    expect(await gate.authorizeWrite(verdict, "call_1")).toEqual({ allow: true });
    expect(asks).toBe(2);
    expect(await gate.authorizeWrite(verdict, "call_1")).toEqual({ allow: true });
    expect(asks).toBe(3);
  });
});
