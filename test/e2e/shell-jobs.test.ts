// Issue 24 on the compiled binary: background jobs the model waits on and kills, programs driven
// through a PTY, logs capped on disk, and nothing a command started outliving its call, its job or omp.
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type ScriptedToolCall } from "../support/standin/index.ts";
import { LineReader, agentTestFile, modelRequests, providerCases, runAgent, spawnOmp, toolResultsOf, workspace } from "../support/agent-harness.ts";
import { RpcProcess } from "../support/agent-rpc.ts";
import { freePort } from "../support/mcp/fixtures.ts";

const standin = await agentTestFile();
const provider = providerCases()[0]!;

const call = (name: string, args: Record<string, unknown>, id: string): { toolCalls: ScriptedToolCall[] } => ({ toolCalls: [{ id, name, arguments: args }] });

/** The tool results the model was sent, by call id, from the last request. */
function results(): Map<string, { text: string; isError?: boolean }> {
  const last = modelRequests(standin).at(-1)!;
  return new Map(toolResultsOf(provider.api, last.body).map((r) => [r.id, r]));
}

/** Live processes whose command line contains `needle` (is a sleep of `needle`, for a number). */
function processesWith(needle: string): number[] {
  const sleeping = /^[\d.]+$/.test(needle);
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8").replaceAll("\0", " ");
      const state = readFileSync(`/proc/${entry}/stat`, "utf8").split(") ")[1]![0];
      const match = sleeping ? cmdline === `sleep ${needle} ` : cmdline.includes(needle);
      if (match && state !== "Z") found.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

/** The bash processes running a command that mentions `tag`. */
function shellsOf(tag: string): number[] {
  return readdirSync("/proc").filter((entry) => {
    if (!/^\d+$/.test(entry)) return false;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8");
      return cmdline.startsWith("bash\0-c\0") && cmdline.includes(tag) && readFileSync(`/proc/${entry}/stat`, "utf8").split(") ")[1]![0] !== "Z";
    } catch {
      return false;
    }
  }).map(Number);
}

async function until(check: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(50);
  }
}

function writeConfig(home: string, yaml: string): void {
  mkdirSync(join(home, ".omp", "agent"), { recursive: true });
  writeFileSync(join(home, ".omp", "agent", "config.yml"), yaml);
}

/** Escapes of every kind, and a 200-process fan-out, all sleeping with `tag` in their command line. */
const escapes = (tag: string) => `setsid sleep ${tag} & (sleep ${tag} &); for i in $(seq 200); do sleep ${tag} & done`;

describe("shell jobs", () => {
  test("the model starts a real HTTP server in the background, waits for its ready line, fetches from it, kills it", async () => {
    const { home, repo } = workspace();
    const port = freePort();
    standin.setScript([
      call("bash", { command: `python3 -u -m http.server ${port} --bind 127.0.0.1`, background: true }, "c1"),
      call("job", { action: "read", id: 1, wait_for: "Serving HTTP on", timeout: 30 }, "c2"),
      call("bash", { command: `curl -s http://127.0.0.1:${port}/` }, "c3"),
      call("job", { action: "kill", id: 1 }, "c4"),
      call("job", { action: "list" }, "c5"),
      { text: "Done." },
    ]);
    // Sandbox off: a server in one command and curl in another need the machine's loopback, which the
    // default sandbox closes (test/e2e/sandbox.test.ts); the user allows it with sandbox.network: allow.
    const run = await runAgent(["-p", "--sandbox", "off", "--model", provider.model, "serve and fetch"], { home, cwd: repo, env: provider.env(standin.url) });
    expect(run.code).toBe(0);
    const r = results();
    expect(r.get("c1")!.text).toContain("Started job 1");
    expect(r.get("c2")!.text).toContain(`Serving HTTP on 127.0.0.1 port ${port}`);
    expect(r.get("c2")!.isError).toBeFalsy();
    expect(r.get("c3")!.text).toContain("README.md");
    expect(r.get("c4")!.text).toMatch(/job 1 killed/);
    // The request curl made reached the server's log, read as new output on the kill.
    expect(r.get("c4")!.text).toContain('"GET / HTTP/1.1" 200');
    expect(r.get("c5")!.text).toMatch(/^job 1 killed/);
    // A job's whole output is in its log, in the session's artifacts.
    const log = /Its output is logged to (\S+)\.$/.exec(r.get("c1")!.text)![1]!;
    expect(log).toContain(join(home, ".omp", "agent", "sessions"));
    expect(readFileSync(log, "utf8")).toMatch(/^Serving HTTP on 127\.0\.0\.1 port \d+ [\s\S]*"GET \/ HTTP\/1\.1" 200 -\n$/);
    expect(processesWith(`http.server ${port}`)).toEqual([]);
  });

  test("python3 -i and git rebase -i are driven through a PTY; the model reads the rendered screen", async () => {
    const { home, repo } = workspace();
    const git = (...args: string[]) => Bun.spawnSync(["git", "-c", "user.name=T", "-c", "user.email=t@example.com", ...args], { cwd: repo, env: { PATH: process.env.PATH!, HOME: home } });
    writeFileSync(join(repo, "a.txt"), "a\n");
    git("add", "a.txt");
    git("commit", "-qm", "second commit");
    const rebase = `GIT_SEQUENCE_EDITOR="sed -i 1s/^pick/reword/" GIT_EDITOR=ed git -c user.name=T -c user.email=t@example.com rebase -i HEAD~1`;
    standin.setScript([
      call("bash", { command: "python3 -i -q", pty: true }, "p1"),
      call("job", { action: "write", id: 1, input: "print('%d-ok' % (6*7))\\r", wait_for: "^42-ok\\n>>>" }, "p2"),
      // The up arrow recalls the line from readline's history.
      call("job", { action: "write", id: 1, input: "<up>\\r", wait_for: "42-ok\\n>>> print.*\\n42-ok\\n>>>" }, "p2b"),
      call("job", { action: "write", id: 1, input: "<c-d>", timeout: 10 }, "p3"),
      call("bash", { command: rebase, pty: true }, "g1"),
      call("job", { action: "write", id: 2, input: "1s/.*/reworded through the pty/\\rw\\rq\\r", wait_for: "Successfully rebased", timeout: 30 }, "g2"),
      { text: "Done." },
    ]);
    // Sandbox off: ed keeps its buffer in /tmp (tmpfile(3) ignores TMPDIR), and with the test's HOME
    // under /tmp the sandbox cannot grant /tmp whole (test/e2e/sandbox.test.ts covers the sandbox).
    const run = await runAgent(["-p", "--sandbox", "off", "--model", provider.model, "drive them"], { home, cwd: repo, env: provider.env(standin.url) });
    expect(run.code).toBe(0);
    const r = results();
    expect(r.get("p1")!.text).toContain(">>>");
    expect(r.get("p1")!.text).toContain("Started job 1 in a terminal");
    const screen = r.get("p2")!.text;
    expect(screen).toContain(">>> print('%d-ok' % (6*7))\n42-ok\n>>>");
    // A screen, not a byte stream: no escape codes reach the model.
    expect(screen).not.toContain("\x1b");
    expect(r.get("p2b")!.isError).toBeFalsy();
    expect(r.get("p2b")!.text).toContain(">>> print('%d-ok' % (6*7))\n42-ok\n>>> print('%d-ok' % (6*7))\n42-ok\n>>>");
    expect(r.get("p3")!.text).toContain("exited with code 0");
    // git waits for ed, which the model's ed commands then drive.
    expect(r.get("g1")!.text).toContain("Waiting for your editor");
    expect(r.get("g2")!.isError).toBeFalsy();
    expect(r.get("g2")!.text).toContain("Successfully rebased");
    const log = Bun.spawnSync(["git", "log", "-1", "--format=%s"], { cwd: repo }).stdout.toString();
    expect(log.trim()).toBe("reworded through the pty");
  });

  test("under --approval-mode write, listing and reading jobs run without asking; writing to one and killing it need approval", async () => {
    const { home, repo } = workspace();
    standin.setScript([
      call("job", { action: "list" }, "a1"),
      call("job", { action: "read", id: 7 }, "a2"),
      call("job", { action: "kill", id: 7 }, "a3"),
      call("job", { action: "write", id: 7, input: "q" }, "a4"),
      { text: "Done." },
    ]);
    const run = await runAgent(["-p", "--approval-mode", "write", "--model", provider.model, "look at jobs"], { home, cwd: repo, env: provider.env(standin.url) });
    expect(run.code).toBe(0);
    const r = results();
    expect(r.get("a1")!.text).toBe("No jobs.");
    expect(r.get("a2")!.text).not.toContain("approval");
    for (const id of ["a3", "a4"]) {
      expect(r.get(id)!.isError).toBe(true);
      expect(r.get(id)!.text).toContain("--approval-mode");
    }
  });

  test("yes and cat /dev/zero | tr under a small bash.maxLogBytes: the log keeps head and tail within the cap, the model gets the totals", async () => {
    const { home, repo } = workspace();
    const cap = 65_536;
    writeConfig(home, `bash:\n  maxLogBytes: ${cap}\n`);
    standin.setScript([
      call("bash", { command: "yes", timeout: 3 }, "y1"),
      call("bash", { command: "cat /dev/zero | tr '\\0' x", timeout: 3 }, "z1"),
      { text: "Done." },
    ]);
    const run = await runAgent(["-p", "--model", provider.model, "flood"], { home, cwd: repo, env: provider.env(standin.url) });
    expect(run.code).toBe(0);
    const r = results();
    for (const id of ["y1", "z1"]) {
      const text = r.get(id)!.text;
      expect(text).toContain("timed out after 3s");
      expect(text).toContain("passed the log cap");
      const [, size, path] = /\(\d+ lines?, ([\d.]+ [KMG]B)\) passed the log cap, so (\S+) keeps only/.exec(text)!;
      expect(size).toMatch(/MB|GB/);
      const onDisk = statSync(path!).size;
      expect(onDisk).toBeLessThan(cap + 400);
      expect(onDisk).toBeGreaterThan(cap / 2);
      const log = readFileSync(path!, "utf8");
      expect(log).toMatch(/\[\.\.\. [\d.]+ [KMG]B \(\d+ bytes\) omitted: this log keeps the first and last parts/);
      expect(log.startsWith(id === "y1" ? "y\ny\n" : "xxxx")).toBe(true);
      expect(readdirSync(join(path!, "..")).filter((name) => name.includes(".tail"))).toEqual([]);
    }
  });

  // Both mechanisms: a cgroup where one can be made (here, as in CI, as root), and the process tags without.
  test.each([["cgroup", {}], ["process-tag", { OMP_NO_CGROUP: "1" }]] as const)("%s: setsid, (cmd &) and a 200-process fan-out end with the call, with their job when omp exits, and after kill -9 at the next start", async (_name, extra) => {
    const { home, repo } = workspace();
    const env = { ...provider.env(standin.url), ...extra };
    // Unsandboxed: the calls count other calls' processes with ps, which a sandboxed command's own
    // PID namespace hides, and a sandboxed job's processes end with omp at once (the launcher's
    // cargo test everything_ends_with_the_launcher), leaving nothing to sweep.
    const unsandboxed = ["--sandbox", "off"];
    const nonce = `${process.pid}${Date.now() % 100000}`;
    const callTag = `600.1${nonce}`;
    const jobTag = `600.2${nonce}`;
    const killTag = `600.3${nonce}`;

    // 1. A foreground call: its escapes are gone when the next call looks.
    standin.setScript([
      call("bash", { command: `${escapes(callTag)}; echo started` }, "f1"),
      call("bash", { command: `ps -eo args | grep -c '^sleep ${callTag}' || true` }, "f2"),
      call("bash", { command: `${escapes(jobTag)}; wait`, background: true }, "f3"),
      // Waits (on a busy machine) until the job has started all of them.
      call("bash", { command: `for i in $(seq 150); do n=$(ps -eo args | grep -c '^sleep ${jobTag}'); [ "$n" -ge 202 ] && break; sleep 0.2; done; echo $n` }, "f4"),
      { text: "Done." },
    ]);
    const run = await runAgent(["-p", ...unsandboxed, "--model", provider.model, "escape"], { home, cwd: repo, env });
    expect(run.code).toBe(0);
    const r = results();
    expect(r.get("f1")!.text).toContain("they were ended with it");
    expect(r.get("f2")!.text.trim()).toBe("0");
    // The background job's processes were all running while omp ran...
    expect(Number(r.get("f4")!.text.trim())).toBe(202);
    // ...and end with the session when omp exits.
    await until(() => processesWith(jobTag).length === 0, 5000, "the job's processes to end");
    expect(processesWith(callTag)).toEqual([]);

    // 2. kill -9 of omp while a job runs: its processes outlive it, and the next omp ends them.
    standin.setScript([
      call("bash", { command: `${escapes(killTag)}; wait`, background: true }, "k1"),
      { text: "omp is killed while this streams.", pauseAfterEvents: provider.firstText, pauseMs: 30_000 },
      { text: "Resumed." },
    ]);
    const child = spawnOmp(["--mode", "json", ...unsandboxed, "--model", provider.model, "escape and die"], { home, cwd: repo, env });
    child.stdin.end();
    const out = new LineReader(child.stdout);
    await out.waitForText('"text_delta"', 30_000);
    await until(() => processesWith(killTag).length === 202, 10_000, "202 processes of the job");
    expect(shellsOf(killTag).length).toBe(1);
    child.kill("SIGKILL");
    await child.exited;
    // The job's shell gets SIGKILL with omp (setpriv --pdeathsig); what it started waits for the sweep.
    if (Bun.which("setpriv")) await until(() => shellsOf(killTag).length === 0, 5000, "the job's shell to die with omp");
    // They outlive it (another omp starting on this machine right now would already sweep them).
    expect(processesWith(killTag).length).toBe(202);
    const resumed = await runAgent(["-p", "-c", ...unsandboxed, "--model", provider.model, "continue"], { home, cwd: repo, env });
    expect(resumed.code).toBe(0);
    await until(() => processesWith(killTag).length === 0, 5000, "the next omp to sweep what the killed one left");
  });

  test("rpc lists the session's jobs and kills one", async () => {
    const { home, repo } = workspace();
    const nonce = `600.4${process.pid}${Date.now() % 100000}`;
    standin.setScript([call("bash", { command: `sleep ${nonce}`, background: true }, "r1"), { text: "Started." }]);
    const rpc = new RpcProcess(["--model", provider.model], { home, cwd: repo, env: provider.env(standin.url) });
    try {
      await rpc.waitFrame((f) => f.type === "ready");
      const mark = rpc.mark;
      expect((await rpc.send({ type: "prompt", message: "start a job" })).success).toBe(true);
      await rpc.waitFrame((f) => f.type === "agent_end", mark);
      const listed = await rpc.send({ type: "get_jobs" });
      expect(listed.data.jobs).toMatchObject([{ id: 1, command: `sleep ${nonce}`, running: true, state: "running", pty: false }]);
      // The job runs before its command does: the sandbox launcher sets up first (its rules take longer the fuller /tmp is).
      await until(() => processesWith(nonce).length === 1, 10_000, "the job's command to start");
      const killed = await rpc.send({ type: "kill_job", jobId: 1 });
      expect(killed.data).toMatchObject({ killed: true, job: { id: 1, running: false, state: "killed" } });
      expect(processesWith(nonce)).toEqual([]);
      const missing = await rpc.send({ type: "kill_job", jobId: 7 });
      expect(missing.success).toBe(false);
      expect(missing.error).toContain("No job 7");
    } finally {
      expect(await rpc.close()).toBe(0);
    }
  });
});

test("a command, sandboxed or not, is in a cgroup of its own from its start, and so is what it starts", async () => {
  // This machine, like CI, runs the tests as root with cgroup v2 mounted; elsewhere there may be no cgroup to look for.
  if (process.getuid?.() !== 0 || !readFileSync("/proc/self/mountinfo", "utf8").includes(" - cgroup2 ")) return;
  const { home, repo } = workspace();
  const script = `grep '^0::' /proc/self/cgroup; sh -c "grep '^0::' /proc/self/cgroup"`;
  for (const sandbox of [[], ["--sandbox", "off"]]) {
    standin.setScript([call("bash", { command: script }, "g1"), call("bash", { command: script }, "g2"), { text: "Done." }]);
    const run = await runAgent(["-p", ...sandbox, "--model", provider.model, "where are you"], { home, cwd: repo, env: provider.env(standin.url) });
    expect(run.code).toBe(0);
    const groups = ["g1", "g2"].map((id) => results().get(id)!.text.match(/^0::.*$/gm) ?? []);
    for (const lines of groups) {
      expect(lines).toHaveLength(2);
      expect(lines[0]).toMatch(/\/omp-\d+-\d+-\d+$/);
      expect(lines[1]).toBe(lines[0]!);
    }
    // One per command.
    expect(groups[0]![0]).not.toBe(groups[1]![0]);
  }
});

test("omp doctor says how commands are contained", async () => {
  const { home, repo } = workspace();
  const run = await runAgent(["doctor", "--json"], { home, cwd: repo });
  const report = JSON.parse(run.stdout);
  const cgroup = /^cgroup v2 per command under (\/\S*) \(cgroup\.kill ends everything it started\)/.exec(report.containment);
  if (Bun.which("setpriv")) expect(report.containment).toEndWith("; each command's shell dies with omp (setpriv --pdeathsig)");
  if (cgroup) expect(existsSync(join(cgroup[1]!, "cgroup.procs"))).toBe(true);
  else expect(report.containment).toMatch(/^process tags \(no writable cgroup v2\)/);
  // This machine, like CI, runs the tests as root with cgroup v2 mounted: the cgroup it is.
  if (process.getuid?.() === 0 && readFileSync("/proc/self/mountinfo", "utf8").includes(" - cgroup2 ")) expect(cgroup).not.toBeNull();
});
