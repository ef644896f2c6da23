// The git omp runs itself (the system prompt's repository summary, the snapshots behind a
// command's rewind, the session's ref) on the compiled binary over rpc: a repository whose
// `.git/config` the model could have written (fsmonitor, hooks, a content filter, an external
// diff, a signature program, an ssh command, a credential helper) never gets a program of its run,
// and the files come back byte for byte whatever its attributes say. One snapshot serves the
// next command of the same turn, but a turn starts from the work tree as the user left it.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { agentTestFile, modelRequests, readJsonl, runAgent, sessionFiles, systemPromptOf, workspace } from "../support/agent-harness.ts";
import { RpcProcess } from "../support/agent-rpc.ts";
import { plantGitConfig } from "../support/planted-git-config.ts";
import { tempDir } from "../support/temp.ts";

const standin = await agentTestFile();
const MODEL = "anthropic/claude-opus-5-5";
const env = () => ({ ANTHROPIC_BASE_URL: standin.url, ANTHROPIC_API_KEY: `omptest_ant_${crypto.randomUUID().replaceAll("-", "")}` });

function userTurns(home: string): { id: string; text: string }[] {
  const entries = readJsonl(sessionFiles(home).find((file) => !file.includes("subagents"))!);
  return entries.filter((e) => e.type === "message" && e.message.role === "user").map((e) => ({ id: e.id, text: typeof e.message.content === "string" ? e.message.content : e.message.content.map((c: any) => c.text ?? "").join("") }));
}

const bash = (command: string) => ({ toolCalls: [{ name: "bash", arguments: { command } }] });

describe("the git omp runs", () => {
  test("a repository configured to run programs (fsmonitor, hooks, filters, external diff, gpg, ssh, credentials) runs none of them through the session's commands and rewind; the files come back byte for byte", async () => {
    const { home, repo } = workspace({ "README.md": "# demo\n", "crlf.txt": "one\r\ntwo\r\n", "src/a.txt": "a0\n" });
    // Conversions the attributes ask for must not change what a snapshot keeps.
    writeFileSync(join(repo, ".gitattributes"), "*.txt text eol=crlf filter=evil\n");
    const marker = join(tempDir("omp-git-marker-"), "ran.txt");
    plantGitConfig(repo, marker);
    standin.setScript([
      bash("printf 'three\\r\\n' >> crlf.txt && echo a1 > src/a.txt && echo new > new.txt"),
      bash("cat crlf.txt"),
      bash("echo more >> README.md"),
      { text: "changed" },
      bash("rm src/a.txt && echo other > other.txt"),
      { text: "changed again" },
    ]);
    const rpc = new RpcProcess(["--model", MODEL], { home, cwd: repo, env: env() });
    try {
      await rpc.waitFrame((f) => f.type === "ready");
      expect((await rpc.turn("change things")).stopReason).toBe("stop");
      // The summary came from git (so its git ran, with the planted configuration in place).
      expect(systemPromptOf("anthropic-messages", modelRequests(standin).at(-4)!.body)).toContain("Branch: main");
      expect((await rpc.turn("change more")).stopReason).toBe("stop");
      const first = userTurns(home)[0]!;
      const rewound = await rpc.send({ type: "rewind", entryId: first.id, scope: "files" });
      expect(rewound.success).toBe(true);
      expect(rewound.data.files.notRestorable).toEqual([]);
      expect(readFileSync(join(repo, "crlf.txt"), "utf8")).toBe("one\r\ntwo\r\n");
      expect(readFileSync(join(repo, "src", "a.txt"), "utf8")).toBe("a0\n");
      expect(readFileSync(join(repo, "README.md"), "utf8")).toBe("# demo\n");
      expect(existsSync(join(repo, "new.txt"))).toBe(false);
      expect(existsSync(join(repo, "other.txt"))).toBe(false);
      expect(await rpc.close()).toBe(0);
    } finally {
      rpc.child.kill();
    }
    expect(existsSync(marker) ? readFileSync(marker, "utf8") : "").toBe("");
  }, 120_000);

  test("a turn starts from the work tree as the user left it: a hand edit between turns is not taken for the next command's change", async () => {
    const { home, repo } = workspace({ "a.txt": "a0\n", "b.txt": "b0\n" });
    standin.setScript([bash("echo a1 > a.txt"), bash("ls"), bash("echo b1 > b.txt"), { text: "one" }, bash("echo c > c.txt"), { text: "two" }]);
    const rpc = new RpcProcess(["--model", MODEL], { home, cwd: repo, env: env() });
    try {
      await rpc.waitFrame((f) => f.type === "ready");
      await rpc.turn("turn 1");
      writeFileSync(join(repo, "a.txt"), "by hand\n");
      await rpc.turn("turn 2");
      const [first, second] = userTurns(home);
      const plan = await rpc.send({ type: "rewind", entryId: second!.id, dryRun: true });
      expect(plan.data.restore).toEqual([join(repo, "c.txt")]);
      expect(plan.data.changedOutside).toEqual([]);
      const back = await rpc.send({ type: "rewind", entryId: first!.id, scope: "files" });
      expect(back.data.files.restored.sort()).toEqual([join(repo, "b.txt"), join(repo, "c.txt")]);
      expect(back.data.files.changedOutside).toEqual([{ path: join(repo, "a.txt") }]);
      expect(readFileSync(join(repo, "a.txt"), "utf8")).toBe("by hand\n");
      expect(readFileSync(join(repo, "b.txt"), "utf8")).toBe("b0\n");
      expect(existsSync(join(repo, "c.txt"))).toBe(false);
      expect(await rpc.close()).toBe(0);
    } finally {
      rpc.child.kill();
    }
  }, 120_000);

  test("commands of one turn that change a file again, change it back, delete and re-create it: each turn comes back exactly, nothing listed as unknown or changed outside", async () => {
    const { home, repo } = workspace({ "a.txt": "a0\n", "b.txt": "b0\n" });
    standin.setScript([
      bash("echo a1 > a.txt"),
      bash("echo a2 > a.txt && echo n1 > new.txt"),
      bash("echo a0 > a.txt && rm b.txt"),
      bash("echo b1 > b.txt && chmod +x b.txt && echo n2 > new.txt"),
      bash("rm new.txt"),
      { text: "one" },
      bash("echo a3 > a.txt && echo b2 > b.txt"),
      { text: "two" },
    ]);
    const rpc = new RpcProcess(["--model", MODEL], { home, cwd: repo, env: env() });
    try {
      await rpc.waitFrame((f) => f.type === "ready");
      await rpc.turn("turn 1");
      await rpc.turn("turn 2");
      // Every command's record of a file starts where the one before it ended: what it held before
      // is what the last command left (or the first state), and the last one ends at the file on disk.
      const session = sessionFiles(home).find((file) => !file.includes("subagents"))!;
      const records = readJsonl(join(session.replace(/\.jsonl$/, ".checkpoints"), "journal.ndjson"));
      expect(records.filter((r) => r.kind !== "file")).toEqual([]);
      const sha = (text: string | undefined) => (text === undefined ? "absent" : new Bun.CryptoHasher("sha256").update(text).digest("hex"));
      const expected: Record<string, (string | undefined)[]> = { "a.txt": ["a0\n", "a1\n", "a2\n", "a0\n", "a3\n"], "b.txt": ["b0\n", undefined, "b1\n", "b2\n"], "new.txt": [undefined, "n1\n", "n2\n", undefined] };
      for (const [name, states] of Object.entries(expected)) {
        const chain = records.filter((r) => r.path === join(repo, name)).map((r) => [r.before, r.after]);
        expect(chain).toEqual(states.slice(1).map((state, i) => [sha(states[i]), sha(state)]));
      }
      const [first, second] = userTurns(home);
      const toSecond = await rpc.send({ type: "rewind", entryId: second!.id, scope: "files" });
      expect(toSecond.data.files.notRestorable).toEqual([]);
      expect(toSecond.data.files.changedOutside).toEqual([]);
      expect(readFileSync(join(repo, "a.txt"), "utf8")).toBe("a0\n");
      expect(readFileSync(join(repo, "b.txt"), "utf8")).toBe("b1\n");
      const toFirst = await rpc.send({ type: "rewind", entryId: first!.id, scope: "files" });
      expect(toFirst.data.files.notRestorable).toEqual([]);
      expect(toFirst.data.files.changedOutside).toEqual([]);
      expect(readFileSync(join(repo, "a.txt"), "utf8")).toBe("a0\n");
      expect(readFileSync(join(repo, "b.txt"), "utf8")).toBe("b0\n");
      expect(existsSync(join(repo, "new.txt"))).toBe(false);
      expect(await rpc.close()).toBe(0);
    } finally {
      rpc.child.kill();
    }
  }, 120_000);

  test("a command's small prior content travels in its journal record (no blob file made on the call's path) and a rewind still puts it back; a larger one gets its blob file", async () => {
    const big = `${"b".repeat(8000)}\n`;
    const { home, repo } = workspace({ "small.txt": "s0\n", "big.txt": big });
    standin.setScript([bash("echo s1 > small.txt && echo b1 > big.txt"), { text: "done" }]);
    const rpc = new RpcProcess(["--model", MODEL], { home, cwd: repo, env: env() });
    try {
      await rpc.waitFrame((f) => f.type === "ready");
      expect((await rpc.turn("change both")).stopReason).toBe("stop");
      const session = sessionFiles(home).find((file) => !file.includes("subagents"))!;
      const checkpoints = session.replace(/\.jsonl$/, ".checkpoints");
      const sha = (text: string) => new Bun.CryptoHasher("sha256").update(text).digest("hex");
      const blob = (text: string) => join(checkpoints, "blobs", sha(text).slice(0, 2), sha(text));
      const records = readJsonl(join(checkpoints, "journal.ndjson"));
      const of = (name: string) => records.find((r) => r.path === join(repo, name))!;
      expect(of("small.txt")).toMatchObject({ before: sha("s0\n"), content: Buffer.from("s0\n").toString("base64") });
      expect(existsSync(blob("s0\n"))).toBe(false);
      expect(of("big.txt").before).toBe(sha(big));
      expect(of("big.txt").content).toBeUndefined();
      expect(existsSync(blob(big))).toBe(true);
      const rewound = await rpc.send({ type: "rewind", entryId: userTurns(home)[0]!.id, scope: "files" });
      expect(rewound.data.files.notRestorable).toEqual([]);
      expect(readFileSync(join(repo, "small.txt"), "utf8")).toBe("s0\n");
      expect(readFileSync(join(repo, "big.txt"), "utf8")).toBe(big);
      expect(readFileSync(blob("s0\n"), "utf8")).toBe("s0\n");
      expect(await rpc.close()).toBe(0);
    } finally {
      rpc.child.kill();
    }
  }, 120_000);

  test("commands that rewrite a file to the same size in the same second, make a file in a new folder, delete one: every change recorded from stat data (git started once a turn, and only for new names after), and the turn comes back exactly", async () => {
    const { home, repo } = workspace({ "a.txt": "a0\n", "b.txt": "b0\n", "src/keep.txt": "k\n" });
    const trace = join(tempDir("omp-git-trace-"), "trace.log");
    standin.setScript([
      bash("printf aaaa > same.txt"),
      bash("printf bbbb > same.txt"),
      bash("printf cccc > same.txt && echo a1 > a.txt"),
      bash("mkdir -p new/deeper && echo n > new/deeper/n.txt"),
      bash("rm b.txt"),
      bash("echo a2 > a.txt"),
      { text: "done" },
    ]);
    const rpc = new RpcProcess(["--model", MODEL], { home, cwd: repo, env: { ...env(), GIT_TRACE: trace } });
    try {
      await rpc.waitFrame((f) => f.type === "ready");
      expect((await rpc.turn("change things")).stopReason).toBe("stop");
      const session = sessionFiles(home).find((file) => !file.includes("subagents"))!;
      const records = readJsonl(join(session.replace(/\.jsonl$/, ".checkpoints"), "journal.ndjson"));
      expect(records.filter((r) => r.kind !== "file")).toEqual([]);
      const sha = (text: string | undefined) => (text === undefined ? "absent" : new Bun.CryptoHasher("sha256").update(text).digest("hex"));
      const chain = (name: string) => records.filter((r) => r.path === join(repo, name)).map((r) => [r.before, r.after]);
      expect(chain("same.txt")).toEqual([[sha(undefined), sha("aaaa")], [sha("aaaa"), sha("bbbb")], [sha("bbbb"), sha("cccc")]]);
      expect(chain("a.txt")).toEqual([[sha("a0\n"), sha("a1\n")], [sha("a1\n"), sha("a2\n")]]);
      expect(chain("new/deeper/n.txt")).toEqual([[sha(undefined), sha("n\n")]]);
      expect(chain("b.txt")).toEqual([[sha("b0\n"), sha(undefined)]]);
      // Six commands: the private index brought up to date once, at the turn's start (nothing to
      // write: the work tree was clean); git asked about ignores only by the two commands that
      // made names never seen before (the new folder: once for it, once for all it holds).
      const gitCalls = (name: string) => readFileSync(trace, "utf8").split("\n").filter((line) => line.includes(`trace: built-in: git ${name} `)).length;
      expect(gitCalls("ls-files")).toBe(1);
      expect(gitCalls("update-index")).toBe(0);
      expect(gitCalls("check-ignore")).toBe(3);
      const rewound = await rpc.send({ type: "rewind", entryId: userTurns(home)[0]!.id, scope: "files" });
      expect(rewound.data.files.notRestorable).toEqual([]);
      expect(rewound.data.files.changedOutside).toEqual([]);
      expect(readFileSync(join(repo, "a.txt"), "utf8")).toBe("a0\n");
      expect(readFileSync(join(repo, "b.txt"), "utf8")).toBe("b0\n");
      expect(existsSync(join(repo, "same.txt"))).toBe(false);
      expect(existsSync(join(repo, "new", "deeper", "n.txt"))).toBe(false);
      expect(await rpc.close()).toBe(0);
    } finally {
      rpc.child.kill();
    }
  }, 120_000);

  test("a command's changes are recorded while its result goes back, yet before a file tool's write and before a print run exits: each change has its own record, none twice", async () => {
    const { home, repo } = workspace({ "a.txt": "a0\n" });
    standin.setScript([
      bash("echo a1 > a.txt"),
      { toolCalls: [{ name: "write", arguments: { path: "a.txt", content: "a2\n" } }] },
      bash("echo a3 > a.txt && echo last > last.txt"),
      { text: "done" },
    ]);
    const run = await runAgent(["-p", "--model", MODEL, "change a.txt"], { home, cwd: repo, env: env() });
    expect(run.code).toBe(0);
    const session = sessionFiles(home).find((file) => !file.includes("subagents"))!;
    const records = readJsonl(join(session.replace(/\.jsonl$/, ".checkpoints"), "journal.ndjson"));
    const sha = (text: string | undefined) => (text === undefined ? "absent" : new Bun.CryptoHasher("sha256").update(text).digest("hex"));
    expect(records.map((r) => [r.source, r.path.slice(repo.length + 1), r.before, r.after])).toEqual([
      ["bash", "a.txt", sha("a0\n"), sha("a1\n")],
      ["write", "a.txt", sha("a1\n"), sha("a2\n")],
      ["bash", "a.txt", sha("a2\n"), sha("a3\n")],
      ["bash", "last.txt", sha(undefined), sha("last\n")],
    ]);
    // The turn's first state, committed while the first command ran, is under the session's ref
    // once the run has exited (finished at exit if git was still at it).
    const git = (...args: string[]) => Bun.spawnSync(["git", ...args], { cwd: repo }).stdout.toString().trim();
    const ref = git("for-each-ref", "--format=%(refname)", "refs/omp/");
    expect(ref).toMatch(/^refs\/omp\/checkpoints\/\S+$/);
    expect(git("show", `${ref}:a.txt`)).toBe("a0");
  }, 120_000);

  test("a background job's changes after its bash call returned are recorded with the job call that saw them, and come back", async () => {
    const { home, repo } = workspace({ "a.txt": "a0\n", "b.txt": "b0\n" });
    standin.setScript([
      // The job changes files only once told to, so the bash call that started it has long returned.
      { toolCalls: [{ name: "bash", arguments: { command: "read go; echo job > a.txt; echo step one; read go; rm b.txt; echo step two", background: true } }] },
      { toolCalls: [{ id: "write-1", name: "job", arguments: { action: "write", id: 1, input: "go\n", wait_for: "step one", timeout: 60 } }] },
      { toolCalls: [{ id: "write-2", name: "job", arguments: { action: "write", id: 1, input: "go\n", wait_for: "step two", timeout: 60 } }] },
      { toolCalls: [{ id: "read-3", name: "job", arguments: { action: "read", id: 1, timeout: 60 } }] },
      { text: "done" },
    ]);
    const rpc = new RpcProcess(["--model", MODEL], { home, cwd: repo, env: env() });
    try {
      await rpc.waitFrame((f) => f.type === "ready");
      expect((await rpc.turn("run a job")).stopReason).toBe("stop");
      expect(readFileSync(join(repo, "a.txt"), "utf8")).toBe("job\n");
      expect(existsSync(join(repo, "b.txt"))).toBe(false);
      const session = sessionFiles(home).find((file) => !file.includes("subagents"))!;
      const records = readJsonl(join(session.replace(/\.jsonl$/, ".checkpoints"), "journal.ndjson"));
      expect(records.filter((r) => r.kind !== "file")).toEqual([]);
      expect(records.map((r) => [r.toolCallId, r.path])).toEqual([
        ["write-1", join(repo, "a.txt")],
        ["write-2", join(repo, "b.txt")],
      ]);
      const rewound = await rpc.send({ type: "rewind", entryId: userTurns(home)[0]!.id, scope: "files" });
      expect(rewound.data.files.notRestorable).toEqual([]);
      expect(readFileSync(join(repo, "a.txt"), "utf8")).toBe("a0\n");
      expect(readFileSync(join(repo, "b.txt"), "utf8")).toBe("b0\n");
      expect(await rpc.close()).toBe(0);
    } finally {
      rpc.child.kill();
    }
  }, 120_000);

  test("a subagent's commands inside the parent's task, then the parent's own: every change comes back, none listed as unknown", async () => {
    const { home, repo } = workspace({ "a.txt": "a0\n" });
    standin.setScript([
      { toolCalls: [{ name: "task", arguments: { subagent_type: "general-purpose", description: "change a", prompt: "change a.txt" } }] },
      bash("echo a1 > a.txt && echo sub > sub.txt"),
      bash("echo sub2 >> sub.txt"),
      { text: "subagent done" },
      bash("echo parent > parent.txt && echo a2 > a.txt"),
      { text: "delegated" },
    ]);
    const rpc = new RpcProcess(["--model", MODEL], { home, cwd: repo, env: env() });
    try {
      await rpc.waitFrame((f) => f.type === "ready");
      expect((await rpc.turn("delegate")).stopReason).toBe("stop");
      expect(readFileSync(join(repo, "sub.txt"), "utf8")).toBe("sub\nsub2\n");
      expect(readFileSync(join(repo, "a.txt"), "utf8")).toBe("a2\n");
      const rewound = await rpc.send({ type: "rewind", entryId: userTurns(home)[0]!.id, scope: "files" });
      expect(rewound.data.files.notRestorable).toEqual([]);
      expect(rewound.data.files.changedOutside).toEqual([]);
      expect(readFileSync(join(repo, "a.txt"), "utf8")).toBe("a0\n");
      expect(existsSync(join(repo, "sub.txt"))).toBe(false);
      expect(existsSync(join(repo, "parent.txt"))).toBe(false);
      expect(await rpc.close()).toBe(0);
    } finally {
      rpc.child.kill();
    }
  }, 120_000);
});
