import { describe, expect, test } from "bun:test";
import { closeSync, linkSync, mkdirSync, openSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PathPolicy } from "../../../core/sandbox/path-policy.ts";
import { buildPolicy, type SandboxMode } from "../../../core/sandbox/policy.ts";
import { tempDir } from "../../support/temp.ts";

/** A home with an ssh key and omp's vault, and a repository in it: the layout of a user's machine. */
function machine(mode: SandboxMode = "workspace-write", denyRead: string[] = []) {
  const root = tempDir("omp-path-policy-");
  const home = join(root, "home");
  const repo = join(home, "repo");
  const extra = join(root, "extra");
  mkdirSync(join(home, ".ssh"), { recursive: true });
  mkdirSync(join(home, ".omp", "agent"), { recursive: true });
  mkdirSync(join(repo, ".git", "hooks"), { recursive: true });
  mkdirSync(extra);
  writeFileSync(join(home, ".ssh", "id_rsa"), "KEY");
  writeFileSync(join(home, ".omp", "agent", "agent.db"), "VAULT");
  writeFileSync(join(home, ".bashrc"), "");
  writeFileSync(join(repo, "notes.md"), "docs");
  const settings = { mode, network: "off" as const, writable: [], denyRead, envAllow: [], allowSockets: [] };
  const sandbox = buildPolicy({ settings, cwd: repo, addDirs: [extra], home, env: {} });
  const policy = new PathPolicy(sandbox, repo, [extra], { userDenyRead: denyRead.map((path) => join(repo, path)) });
  return { root, home, repo, extra, policy };
}

describe("PathPolicy", () => {
  test("the deny-list is refused, naming what opens it; the project reads and writes freely", () => {
    const { home, repo, policy } = machine();
    const key = policy.check(join(home, ".ssh", "id_rsa"), "read");
    expect(key.kind).toBe("denied");
    expect(key.kind === "denied" && key.message).toContain("--sandbox off");
    expect(policy.check(join(home, ".omp", "agent", "agent.db"), "read").kind).toBe("denied");
    expect(policy.check(join(home, ".omp", "agent", "agent.db-wal"), "read").kind).toBe("denied");
    expect(policy.check(join(repo, "notes.md"), "read").kind).toBe("allowed");
    expect(policy.check(join(repo, "src", "new.ts"), "write").kind).toBe("allowed");
    expect(policy.check(join(home, ".bashrc"), "read").kind).toBe("allowed");
  });

  test("links planted in the project lead where the kernel would go: symlinks, dangling ones, hard links, /proc/self/root", () => {
    const { home, repo, policy } = machine();
    symlinkSync(join(home, ".ssh", "id_rsa"), join(repo, "k"));
    symlinkSync(join(home, ".ssh"), join(repo, "dir"));
    symlinkSync(join(home, ".ssh", "not-yet"), join(repo, "dangling"));
    linkSync(join(home, ".ssh", "id_rsa"), join(repo, "hard"));
    expect(policy.check(join(repo, "k"), "read").kind).toBe("denied");
    expect(policy.check(join(repo, "dir", "id_rsa"), "read").kind).toBe("denied");
    expect(policy.check(join(repo, "sub", "..", "dir", "..", "k"), "read").kind).toBe("denied");
    expect(policy.check(join(repo, "dangling"), "write").kind).toBe("denied");
    expect(policy.check(join(repo, "hard"), "read").kind).toBe("denied");
    expect(policy.check(`/proc/self/root${join(home, ".ssh", "id_rsa")}`, "read").kind).toBe("denied");
    const fd = openSync(join(home, ".ssh", "id_rsa"), "r");
    try {
      expect(policy.check(`/proc/self/fd/${fd}`, "read").kind).toBe("denied");
      expect(policy.check(`/proc/${process.pid}/fd/${fd}`, "read").kind).toBe("denied");
    } finally {
      closeSync(fd);
    }
    expect(policy.check("/proc/self/environ", "read").kind).toBe("denied");
    expect(policy.check(`/proc/${process.ppid}/cmdline`, "read").kind).toBe("denied");
    // An ordinary hard link in the project is just a file.
    linkSync(join(repo, "notes.md"), join(repo, "notes-again.md"));
    expect(policy.check(join(repo, "notes-again.md"), "read").kind).toBe("allowed");
  });

  test("writes outside the writable roots need approval, saying how to allow them; the home stays closed inside /tmp", () => {
    const { home, repo, extra, policy } = machine();
    const bashrc = policy.check(join(home, ".bashrc"), "write");
    expect(bashrc).toMatchObject({ kind: "needs-approval", why: "outside" });
    expect(bashrc.kind === "needs-approval" && bashrc.howToAllow).toContain("--add-dir");
    expect(bashrc.kind === "needs-approval" && bashrc.howToAllow).toContain("sandbox.writable");
    expect(policy.check(join(home, ".omp", "agent", "config.yml"), "write").kind).toBe("needs-approval");
    symlinkSync(join(home, ".bashrc"), join(repo, "rc"));
    expect(policy.check(join(repo, "rc"), "write").kind).toBe("needs-approval");
    expect(policy.check(join(extra, "out.txt"), "write").kind).toBe("allowed");
    expect(policy.check(join(home, ".cache", "x"), "write").kind).toBe("allowed");
  });

  test("protected workspace paths need approval to be written and stay readable", () => {
    const { repo, extra, policy } = machine();
    for (const path of [".git/config", ".git/hooks/pre-commit", ".git/info/attributes", ".gitmodules", ".omp/config.yml", ".claude/settings.json", ".mcp.json", ".lsp.json", ".vscode/tasks.json", ".idea/x.xml", ".envrc", ".env.local", "app/.env"]) {
      expect({ path, verdict: policy.check(join(repo, path), "write") }).toMatchObject({ path, verdict: { kind: "needs-approval", why: "protected" } });
      expect(policy.check(join(repo, path), "read").kind).toBe("allowed");
    }
    expect(policy.check(join(extra, ".vscode", "settings.json"), "write").kind).toBe("needs-approval");
    expect(policy.check(join(repo, ".git", "HEAD"), "write").kind).toBe("allowed");
    expect(policy.check(join(repo, ".github", "workflows", "ci.yml"), "write").kind).toBe("allowed");
    symlinkSync(join(repo, ".git", "config"), join(repo, "cfg"));
    expect(policy.check(join(repo, "cfg"), "write").kind).toBe("needs-approval");
    // The launcher's whole list: git's pointers that would send omp's own git to a config of the model's.
    for (const path of [".git/commondir", ".git/config.worktree"]) expect({ path, verdict: policy.check(join(repo, path), "write") }).toMatchObject({ path, verdict: { kind: "needs-approval", why: "protected" } });
  });

  test("in a linked worktree, its .git file and the common dir's config and hooks are protected", () => {
    const root = tempDir("omp-path-policy-wt-");
    const home = join(root, "home");
    const main = join(root, "main");
    const tree = join(root, "tree");
    mkdirSync(join(main, ".git", "worktrees", "tree"), { recursive: true });
    mkdirSync(join(main, ".git", "hooks"), { recursive: true });
    mkdirSync(join(main, ".git", "objects"), { recursive: true });
    mkdirSync(join(main, ".git", "refs"), { recursive: true });
    mkdirSync(home, { recursive: true });
    mkdirSync(tree);
    writeFileSync(join(main, ".git", "HEAD"), "ref: refs/heads/main\n");
    writeFileSync(join(main, ".git", "worktrees", "tree", "HEAD"), "ref: refs/heads/x\n");
    writeFileSync(join(main, ".git", "worktrees", "tree", "commondir"), "../..\n");
    writeFileSync(join(tree, ".git"), `gitdir: ${join(main, ".git", "worktrees", "tree")}\n`);
    const settings = { mode: "workspace-write" as const, network: "off" as const, writable: [], denyRead: [], envAllow: [], allowSockets: [] };
    const policy = new PathPolicy(buildPolicy({ settings, cwd: tree, addDirs: [], home, env: {} }), tree, []);
    for (const path of [join(tree, ".git"), join(main, ".git", "config"), join(main, ".git", "hooks", "post-checkout"), join(main, ".git", "worktrees", "tree", "commondir")]) {
      expect({ path, verdict: policy.check(path, "write") }).toMatchObject({ path, verdict: { kind: "needs-approval", why: "protected" } });
    }
    expect(policy.check(join(tree, "src.ts"), "write").kind).toBe("allowed");
  });

  test("sandbox.denyRead is named as the setting; read-only asks for every write; off opens every door", () => {
    const user = machine("workspace-write", ["private"]);
    const verdict = user.policy.check(join(user.repo, "private", "a.txt"), "read");
    expect(verdict.kind === "denied" && verdict.message).toContain("sandbox.denyRead");
    const readOnly = machine("read-only");
    expect(readOnly.policy.check(join(readOnly.repo, "a.ts"), "write").kind).toBe("needs-approval");
    expect(readOnly.policy.check(join(readOnly.repo, "a.ts"), "read").kind).toBe("allowed");
    const off = machine("off");
    expect(off.policy.check(join(off.home, ".ssh", "id_rsa"), "read").kind).toBe("allowed");
    expect(off.policy.check(join(off.home, ".bashrc"), "write").kind).toBe("allowed");
    expect(off.policy.deniedBelow(off.home)).toEqual([]);
  });

  test("a walk learns the denied trees below its root", () => {
    const { home, repo, policy } = machine();
    const below = policy.deniedBelow(home);
    expect(below).toContain(".ssh");
    expect(below).toContain(".omp/agent/agent.db*");
    expect(policy.deniedBelow(repo)).toEqual([]);
  });
});
