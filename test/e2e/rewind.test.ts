// Rewind with the files (issue 28), on the compiled binary over rpc: a session edits files across
// five turns (write, edit, apply_patch, bash in a git repository), then goes back two turns with
// the files; a file changed outside omp is reported and left alone; bash's changes come back from
// the git snapshot while the user's index, HEAD and branches stay as they were; outside git bash
// is reported as not restorable; kill -9 in the middle of a restore leaves each file old or new.
import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { agentTestFile, readJsonl, runAgent, sessionFiles, workspace } from "../support/agent-harness.ts";
import { RpcProcess } from "../support/agent-rpc.ts";
import { tempDir } from "../support/temp.ts";

const standin = await agentTestFile();
const MODEL = "anthropic/claude-opus-5-5";
const env = () => ({ ANTHROPIC_BASE_URL: standin.url, ANTHROPIC_API_KEY: `omptest_ant_${crypto.randomUUID().replaceAll("-", "")}` });

function git(cwd: string, ...args: string[]): string {
  const result = Bun.spawnSync(["git", ...args], { cwd, env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: cwd, GIT_CONFIG_NOSYSTEM: "1" }, stdout: "pipe", stderr: "pipe" });
  if (result.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${result.stderr.toString()}`);
  return result.stdout.toString();
}

const sha = (path: string) => createHash("sha256").update(readFileSync(path)).digest("hex");

async function turn(rpc: RpcProcess, message: string): Promise<any> {
  const mark = rpc.mark;
  const response = await rpc.send({ type: "prompt", message });
  expect(response.success).toBe(true);
  return rpc.waitFrame((f) => f.type === "agent_end", mark);
}

/** The session's user messages on the current branch, oldest first, as [entry id, text]. */
function userTurns(home: string): { id: string; parentId: string | null; text: string }[] {
  const entries = readJsonl(sessionFiles(home).find((file) => !file.includes("subagents"))!);
  return entries
    .filter((e) => e.type === "message" && e.message.role === "user")
    .map((e) => ({ id: e.id, parentId: e.parentId, text: typeof e.message.content === "string" ? e.message.content : e.message.content.map((c: any) => c.text ?? "").join("") }));
}

const toolTurn = (name: string, args: Record<string, unknown>) => [{ toolCalls: [{ name, arguments: args }] }, { text: `${name} done` }];

describe("rewind with the files", () => {
  test("five turns, back two with the files: earlier content back, an outside change reported, bash undone from the git snapshot, the session continues on a new branch", async () => {
    const { home, repo } = workspace({ "a.txt": "a0\n", "README.md": "# demo\n", "staged.txt": "s0\n" });
    // The user's own staged change: the index must come out of the session exactly as it went in.
    writeFileSync(join(repo, "staged.txt"), "s1 staged\n");
    git(repo, "add", "staged.txt");
    const indexBefore = sha(join(repo, ".git", "index"));
    mkdirSync(join(home, ".omp", "agent"), { recursive: true });
    writeFileSync(join(home, ".omp", "agent", "config.yml"), "edit:\n  mode: apply_patch\n");
    const headBefore = git(repo, "rev-parse", "HEAD");
    const branchesBefore = git(repo, "for-each-ref", "refs/heads");
    standin.setScript([
      ...toolTurn("write", { path: "a.txt", content: "a1\n" }),
      ...toolTurn("apply_patch", { input: "*** Begin Patch\n*** Update File: a.txt\n@@\n-a1\n+a2\n*** End Patch" }),
      ...toolTurn("bash", { command: "echo bashed > c.txt && echo more >> README.md && echo b3 > b.txt" }),
      ...toolTurn("apply_patch", { input: "*** Begin Patch\n*** Update File: a.txt\n@@\n-a2\n+a4\n*** Add File: e.txt\n+e4\n*** End Patch" }),
      ...toolTurn("write", { path: "b.txt", content: "b5\n" }),
      { text: "continued on the new branch" },
    ]);
    const rpc = new RpcProcess(["--model", MODEL], { home, cwd: repo, env: env() });
    try {
      await rpc.waitFrame((f) => f.type === "ready");
      for (const message of ["turn 1", "turn 2", "turn 3", "turn 4", "turn 5"]) expect((await turn(rpc, message)).stopReason).toBe("stop");
      expect(readFileSync(join(repo, "a.txt"), "utf8")).toBe("a4\n");
      expect(readFileSync(join(repo, "b.txt"), "utf8")).toBe("b5\n");
      // Someone else changes e.txt after omp wrote it.
      writeFileSync(join(repo, "e.txt"), "edited by hand\n");
      const turns = userTurns(home);
      expect(turns.map((t) => t.text)).toEqual(["turn 1", "turn 2", "turn 3", "turn 4", "turn 5"]);
      const fourth = turns[3]!;

      const plan = await rpc.send({ type: "rewind", entryId: fourth.id, dryRun: true });
      expect(plan.success).toBe(true);
      expect(plan.data.restore.sort()).toEqual([join(repo, "a.txt"), join(repo, "b.txt")]);
      expect(plan.data.changedOutside).toEqual([{ path: join(repo, "e.txt") }]);
      expect(plan.data.notRestorable).toEqual([]);
      // A dry run changes nothing.
      expect(readFileSync(join(repo, "a.txt"), "utf8")).toBe("a4\n");

      const rewound = await rpc.send({ type: "rewind", entryId: fourth.id, scope: "both" });
      expect(rewound.success).toBe(true);
      expect(rewound.data.text).toBe("turn 4");
      expect(rewound.data.files.restored.sort()).toEqual([join(repo, "a.txt"), join(repo, "b.txt")]);
      expect(rewound.data.files.changedOutside).toEqual([{ path: join(repo, "e.txt") }]);
      expect(readFileSync(join(repo, "a.txt"), "utf8")).toBe("a2\n");
      expect(readFileSync(join(repo, "b.txt"), "utf8")).toBe("b3\n");
      expect(readFileSync(join(repo, "e.txt"), "utf8")).toBe("edited by hand\n");
      // Turn 3's bash changes are still there (before the rewind point).
      expect(readFileSync(join(repo, "c.txt"), "utf8")).toBe("bashed\n");

      // The session continues from before turn 4, on a new branch.
      expect((await turn(rpc, "instead of turn 4")).stopReason).toBe("stop");
      const after = userTurns(home);
      const fresh = after.find((t) => t.text === "instead of turn 4")!;
      expect(fresh.parentId).toBe(fourth.parentId);
      expect(after.filter((t) => t.parentId === fourth.parentId)).toHaveLength(2);

      // Further back, past the bash turn: its changes come back out of the git snapshot.
      const third = after.find((t) => t.text === "turn 3")!;
      const files = await rpc.send({ type: "rewind", entryId: third.id, scope: "files" });
      expect(files.success).toBe(true);
      expect(files.data.text).toBeUndefined();
      expect(existsSync(join(repo, "c.txt"))).toBe(false);
      expect(existsSync(join(repo, "b.txt"))).toBe(false);
      expect(readFileSync(join(repo, "README.md"), "utf8")).toBe("# demo\n");
      expect(readFileSync(join(repo, "a.txt"), "utf8")).toBe("a2\n");
      // Not a user message of this branch: refused, nothing changed.
      const bad = await rpc.send({ type: "rewind", entryId: "nope1234", scope: "both" });
      expect(bad.success).toBe(false);
      expect(bad.error).toContain("not a user message");
      expect(await rpc.close()).toBe(0);
    } finally {
      rpc.child.kill();
    }
    // The user's repository: same index (their staged change included), HEAD and branches; the snapshots under refs/omp.
    expect(sha(join(repo, ".git", "index"))).toBe(indexBefore);
    expect(git(repo, "rev-parse", "HEAD")).toBe(headBefore);
    expect(git(repo, "for-each-ref", "refs/heads")).toBe(branchesBefore);
    expect(git(repo, "diff", "--cached", "--name-only")).toBe("staged.txt\n");
    expect(git(repo, "for-each-ref", "--format=%(refname)", "refs/omp/")).toMatch(/^refs\/omp\/checkpoints\/\S+\n$/);
    const session = sessionFiles(home)[0]!;
    const checkpoints = session.replace(/\.jsonl$/, ".checkpoints");
    expect(readdirSync(join(checkpoints, "blobs"), { recursive: true }).filter((name) => String(name).length === 64 + 3).length).toBeGreaterThan(0);
    // The checkpoints go with their session: once its file is deleted, the next session's first change removes them and the ref.
    rmSync(session);
    standin.setScript(toolTurn("write", { path: "later.txt", content: "later\n" }));
    expect((await runAgent(["-p", "--model", MODEL, "one more"], { home, cwd: repo, env: env() })).code).toBe(0);
    expect(existsSync(checkpoints)).toBe(false);
    expect(git(repo, "for-each-ref", "refs/omp/")).toBe("");
  }, 120_000);

  test("outside a git repository bash's changes are listed as not restorable; the files omp wrote still come back", async () => {
    const home = tempDir("omp-rewind-home-");
    const dir = tempDir("omp-rewind-plain-");
    writeFileSync(join(dir, "kept.txt"), "k0\n");
    writeFileSync(join(dir, "code.ts"), "const x = foo(1);\n");
    writeFileSync(join(dir, "sub.txt"), "s0\n");
    standin.setScript([
      { toolCalls: [{ name: "edit", arguments: { path: "kept.txt", edits: [{ oldText: "k0", newText: "k1" }] } }, { name: "ast_edit", arguments: { pattern: "foo($A)", rewrite: "bar($A)", path: "code.ts", apply: true } }] },
      { text: "edited" },
      ...toolTurn("bash", { command: "echo x > made-by-bash.txt" }),
      // A subagent's writes are its parent's tool call's: the parent's rewind takes them back too.
      { toolCalls: [{ name: "task", arguments: { subagent_type: "general-purpose", description: "write sub", prompt: "write sub.txt" } }] },
      ...toolTurn("write", { path: "sub.txt", content: "from the subagent\n" }),
      { text: "delegated" },
    ]);
    const rpc = new RpcProcess(["--model", MODEL], { home, cwd: dir, env: env() });
    try {
      await rpc.waitFrame((f) => f.type === "ready");
      await turn(rpc, "write it");
      expect(readFileSync(join(dir, "code.ts"), "utf8")).toBe("const x = bar(1);\n");
      await turn(rpc, "run it");
      await turn(rpc, "delegate it");
      expect(readFileSync(join(dir, "sub.txt"), "utf8")).toBe("from the subagent\n");
      const first = userTurns(home)[0]!;
      const rewound = await rpc.send({ type: "rewind", entryId: first.id, scope: "files" });
      expect(rewound.success).toBe(true);
      expect(readFileSync(join(dir, "code.ts"), "utf8")).toBe("const x = foo(1);\n");
      expect(rewound.data.files.restored.sort()).toEqual([join(dir, "code.ts"), join(dir, "kept.txt"), join(dir, "sub.txt")]);
      expect(readFileSync(join(dir, "sub.txt"), "utf8")).toBe("s0\n");
      expect(rewound.data.files.notRestorable).toEqual([{ reason: "bash `echo x > made-by-bash.txt`: not a git repository, so its changes are unknown" }]);
      expect(readFileSync(join(dir, "kept.txt"), "utf8")).toBe("k0\n");
      expect(existsSync(join(dir, "made-by-bash.txt"))).toBe(true);
      expect(await rpc.close()).toBe(0);
    } finally {
      rpc.child.kill();
    }
  }, 60_000);

  test("in a git repository a symlink or folder a command made is listed as not restorable, and the command's result is kept", async () => {
    const home = tempDir("omp-rewind-home-");
    const dir = tempDir("omp-rewind-links-");
    git(dir, "init", "-q");
    mkdirSync(join(dir, "helper"));
    writeFileSync(join(dir, "helper", "index.js"), "module.exports = 1;\n");
    standin.setScript([...toolTurn("bash", { command: "mkdir -p node_modules && ln -s ../helper node_modules/helper && echo linked" })]);
    const rpc = new RpcProcess(["--model", MODEL, "--sandbox", "off"], { home, cwd: dir, env: env() });
    try {
      await rpc.waitFrame((f) => f.type === "ready");
      const end = await turn(rpc, "link it");
      expect(end.stopReason).toBe("stop");
      const plan = await rpc.send({ type: "rewind", entryId: userTurns(home)[0]!.id, dryRun: true });
      expect(plan.data.notRestorable).toEqual([{ reason: "bash `mkdir -p node_modules && ln -s ../helper node_modules/helper && echo linked`: node_modules/helper: a symlink or folder it made or changed, which omp does not restore" }]);
      expect(await rpc.close()).toBe(0);
    } finally {
      rpc.child.kill();
    }
  }, 60_000);

  test("untracked files too big to copy into git's object store leave the command unsnapshotted (listed as not restorable), and git stores nothing of them", async () => {
    const home = tempDir("omp-rewind-home-");
    const dir = tempDir("omp-rewind-big-");
    git(dir, "init", "-q");
    standin.setScript([...toolTurn("bash", { command: "truncate -s 60M big.bin && echo made" })]);
    const rpc = new RpcProcess(["--model", MODEL, "--sandbox", "off"], { home, cwd: dir, env: env() });
    try {
      await rpc.waitFrame((f) => f.type === "ready");
      expect((await turn(rpc, "make it")).stopReason).toBe("stop");
      const plan = await rpc.send({ type: "rewind", entryId: userTurns(home)[0]!.id, dryRun: true });
      expect(plan.data.notRestorable).toHaveLength(1);
      expect(plan.data.notRestorable[0].reason).toContain("untracked files over 50 MB");
      expect(await rpc.close()).toBe(0);
    } finally {
      rpc.child.kill();
    }
    expect(git(dir, "count-objects", "-v")).toContain("size-pack: 0");
    expect(git(dir, "for-each-ref", "refs/omp")).not.toContain("big");
    expect(Number(/^size: (\d+)/m.exec(git(dir, "count-objects", "-v"))![1])).toBeLessThan(1024);
  }, 60_000);

  test("kill -9 in the middle of a restore leaves every file either old or new, never torn", async () => {
    const COUNT = 600;
    const names = Array.from({ length: COUNT }, (_, i) => `f${String(i).padStart(3, "0")}.txt`);
    const old = "o".repeat(32 * 1024);
    const { home, repo } = workspace(Object.fromEntries(names.map((name) => [name, old])));
    standin.setScript([...toolTurn("bash", { command: "for f in f*.txt; do tr o n < $f > $f.new && mv $f.new $f; done" })]);
    const rpc = new RpcProcess(["--model", MODEL], { home, cwd: repo, env: env() });
    const oldSha = createHash("sha256").update(old).digest("hex");
    const newSha = createHash("sha256").update("n".repeat(32 * 1024)).digest("hex");
    const states = () => names.map((name) => sha(join(repo, name)));
    try {
      await rpc.waitFrame((f) => f.type === "ready");
      await turn(rpc, "rewrite them all");
      expect(states().every((state) => state === newSha)).toBe(true);
      const first = userTurns(home)[0]!;
      rpc.writeLine(JSON.stringify({ id: "r", type: "rewind", entryId: first.id, scope: "files" }));
      // Killed once some files are back: a point in the middle that depends on the disk's speed.
      const deadline = Date.now() + 60_000;
      while (states().filter((state) => state === oldSha).length < 20 && Date.now() < deadline) await Bun.sleep(1);
      rpc.child.kill(9);
      await rpc.child.exited;
    } finally {
      rpc.child.kill();
    }
    const after = states();
    const back = after.filter((state) => state === oldSha).length;
    expect(after.filter((state) => state !== oldSha && state !== newSha)).toEqual([]);
    expect(back).toBeGreaterThanOrEqual(20);
    expect(back).toBeLessThan(COUNT);
  }, 120_000);
});
