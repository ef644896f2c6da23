/**
 * The sandbox's cost per command (`bun bench/sandbox.ts`): the launcher confining itself and
 * exec'ing `true` and `bash -c true` (what the bash tool runs) under the default policy, against
 * the same commands unconfined; for comparison, one start-up of the omp binary itself (what a
 * hidden `omp sandbox-exec` subcommand would cost per command) and the launcher's `--probe` (paid
 * once per agent start); where a cgroup can be made, the launcher as omp runs it (in the command's
 * cgroup) and what moving a process into a cgroup costs. Writes bench/results/sandbox.json and sandbox.md.
 */
import { mkdirSync, rmdirSync, rmSync, writeFileSync } from "node:fs";
import { cpus, homedir, loadavg } from "node:os";
import { join } from "node:path";
import { hyperfineRounds } from "./hyperfine.ts";
import { buildPolicy, launcherRules } from "../core/sandbox/policy.ts";
import { sandboxSupport } from "../core/sandbox/launcher-status.ts";
import { sessionNetwork } from "../core/sandbox/session-network.ts";
import { containmentMechanism } from "../core/shell/containment.ts";
import { startStandin } from "../test/support/standin/index.ts";
import { ROOT, OMP, RESULTS, workDir } from "./paths.ts";

const WORK = workDir("sandbox");
const TARGET_MS = 5;
/** Entries beside a home inside a shared folder (a /tmp holds thousands): each is granted by a rule of its own. */
const BUSY_ENTRIES = 4000;

/** A home inside a folder of BUSY_ENTRIES files and dirs, the folder writable (as /tmp is). */
function busyFolder(): { folder: string; home: string } {
  const folder = join(WORK, "busy");
  rmSync(folder, { recursive: true, force: true });
  for (let i = 0; i < BUSY_ENTRIES; i++) {
    if (i % 4 === 0) mkdirSync(join(folder, `d${i}`), { recursive: true });
    else writeFileSync(join(folder, `f${i}`), "");
  }
  const home = join(folder, "home");
  mkdirSync(join(home, ".ssh"), { recursive: true });
  return { folder, home };
}
const ms = (seconds: number) => Math.round(seconds * 100_000) / 100;

/**
 * The launcher in a command's cgroup (`-C`, as omp runs it: the namespaces' init born in it)
 * against moving into the cgroup first, and a command outside the sandbox born in its cgroup
 * (`--contain`) against a shell moving in. Moving makes the kernel wait for an RCU grace period,
 * unless another move came within the last one, so the runs are 30 ms apart, as a session's
 * commands are, not back to back.
 */
async function cgroupCost(cgroup: string, launcher: string, rules: string[]): Promise<string> {
  // set -f: the rules' name patterns (agent.db*) go to the launcher as they are.
  const moveIn = (command: string) => `sh -c 'set -f; echo $$ > ${cgroup}/cgroup.procs; exec ${command}'`;
  const confined = [launcher, ...rules, "--", "/bin/true"].join(" ");
  const commands = [[launcher, "-C", cgroup, ...rules, "--", "/bin/true"].join(" "), moveIn(confined), "sh -c 'exec /bin/true'", moveIn("/bin/true"), `${launcher} --contain -C ${cgroup} -D -- /bin/true`];
  try {
    const [born, moved, shell, shellMoved, contained] = (await hyperfineRounds("sandbox-cgroup", commands, { workDir: WORK, runs: 30, rounds: 5, warmup: 3, flags: ["--prepare", "sleep 0.03"] })).map((t) => ms(t.median));
    return `| \`omp-sandbox <policy> -- true\` in the command's cgroup, as omp runs it: the namespaces' init born in it (\`-C\`) vs the launcher moved in first (until now) | ${born} vs ${moved} ms | — |
| \`true\` outside the sandbox in its cgroup: born in it (\`omp-sandbox --contain\`, as omp runs the user's and \`--sandbox off\` commands) vs a shell moving in first (\`sh -c 'echo $$ > cgroup.procs; exec true'\`, until now) vs no cgroup (\`sh -c 'exec true'\`) | ${contained} vs ${shellMoved} vs ${shell} ms | — |
`;
  } finally {
    rmdirSync(cgroup);
  }
}

async function main(): Promise<void> {
  const support = sandboxSupport();
  if (support.kind !== "landlock") throw new Error(`no Landlock launcher here: ${JSON.stringify(support)}`);
  mkdirSync(WORK, { recursive: true });
  mkdirSync(RESULTS, { recursive: true });
  const home = homedir();
  const policy = buildPolicy({ settings: { mode: "workspace-write", network: "loopback", writable: [], denyRead: [], envAllow: [], allowSockets: [] }, cwd: ROOT, addDirs: [], home, env: process.env });
  // The default: the session's loopback network, held for the whole bench as omp holds it for a session.
  const session = sessionNetwork(support.launcher);
  if (!session) throw new Error("the session's loopback network could not be made");
  const rules = launcherRules(policy, { session }, support.namespaces);
  const launch = [support.launcher, ...rules, "--"].join(" ");
  const busy = busyFolder();
  const busyPolicy = buildPolicy({ settings: { mode: "workspace-write", network: "loopback", writable: [busy.folder], denyRead: [], envAllow: [], allowSockets: [] }, cwd: ROOT, addDirs: [], home: busy.home, env: process.env });
  // A cgroup as omp makes one per command, where this machine lets it (containment.ts).
  const cgroupBase = containmentMechanism().where;
  const cgroup = cgroupBase ? join(cgroupBase, `omp-bench-sandbox-${process.pid}`) : undefined;
  if (cgroup) mkdirSync(cgroup);
  const loadBefore = loadavg().map((n) => n.toFixed(2)).join(" ");
  const commands = {
    bare: "/bin/true",
    confined: `${launch} /bin/true`,
    bash: "bash -c true",
    confinedBash: `${launch} bash -c true`,
    loopback: `${[support.launcher, ...launcherRules(policy, {}, support.namespaces), "--"].join(" ")} /bin/true`,
    noNamespaces: `${[support.launcher, ...launcherRules({ ...policy, network: "off" }, {}, false), "--"].join(" ")} /bin/true`,
    busyHome: `${[support.launcher, ...launcherRules(busyPolicy, { session }, support.namespaces), "--"].join(" ")} /bin/true`,
    ompStart: `${OMP} --version`,
    probe: `${support.launcher} --probe`,
  };
  const timings = await hyperfineRounds("sandbox", Object.values(commands), { workDir: WORK, runs: 60, rounds: 5, warmup: 5 });
  const by = Object.fromEntries(Object.keys(commands).map((key, i) => [key, ms(timings[i]!.median)])) as Record<keyof typeof commands, number>;
  const cgroupRows = cgroup ? await cgroupCost(cgroup, support.launcher, rules) : "";
  const overhead = Math.round((by.confined - by.bare) * 100) / 100;
  const bashOverhead = Math.round((by.confinedBash - by.bash) * 100) / 100;
  // Start-up: a whole `omp -p` answer (zero-latency stand-in) with the sandbox's start-up work
  // (the launcher lookup and its --probe) against --sandbox off, which skips it.
  const standin = await startStandin({ fast: true });
  standin.setScript(Array.from({ length: 10_000 }, () => ({ text: "ok" })));
  const run = `${OMP} -p --no-session --model anthropic/claude-sonnet-5-5 hi`;
  const [withSandbox, without] = await hyperfineRounds("sandbox-start", [run, `${run} --sandbox off`], {
    workDir: WORK,
    runs: 20,
    rounds: 5,
    warmup: 3,
    env: { HOME: home, ANTHROPIC_BASE_URL: standin.url, ANTHROPIC_API_KEY: "bench-key-0123456789", OMP_NO_UPDATE_CHECK: "1" },
  });
  standin.close();
  const start = { sandbox: ms(withSandbox!.median), off: ms(without!.median) };
  const loadAfter = loadavg().map((n) => n.toFixed(2)).join(" ");
  const result = { date: new Date().toISOString(), cpu: cpus()[0]?.model, cores: cpus().length, loadBefore, loadAfter, home, rules: rules.length / 2, abi: support.abi, medianMs: by, startMs: start, overheadMs: overhead, bashOverheadMs: bashOverhead, targetMs: TARGET_MS };
  writeFileSync(join(RESULTS, "sandbox.json"), `${JSON.stringify(result, null, 2)}\n`);
  const md = `# Sandbox benchmarks

\`bun bench/sandbox.ts\` on ${result.cpu} (${result.cores} cores), ${result.date}; load average before ${loadBefore}, after ${loadAfter}.
Landlock ABI ${support.abi}; the default policy (workspace-write, network loopback) for this checkout with HOME=${home}: ${result.rules} rules on the launcher's command line, the read grant walked around the denied paths at every launch, the command in PID and mount namespaces of its own (protected paths bound read-only, Unix sockets covered) and in the session's loopback network.

| Benchmark | Median | Target |
|---|---|---|
| \`true\` | ${by.bare} ms | — |
| \`omp-sandbox <policy> -- true\` | ${by.confined} ms | — |
| **Set-up cost per command** (difference) | **${overhead} ms** | ≤ ${TARGET_MS} ms ${overhead <= TARGET_MS ? "✓" : "✗"} |
| \`bash -c true\` | ${by.bash} ms | — |
| \`omp-sandbox <policy> -- bash -c true\` (what the bash tool runs) | ${by.confinedBash} ms | — |
| The same \`true\` making a loopback network of its own (\`-l\`, when the session's cannot be held) | ${by.loopback} ms | — |
| Before PID/mount namespaces: \`true\` with network off and \`-x\` (what the launcher cost until now) | ${by.noNamespaces} ms | — |
| Set-up cost for bash (difference) | ${bashOverhead} ms | — |
| \`true\` with the home inside a writable folder of ${BUSY_ENTRIES} entries (a home in a shared /tmp: each entry beside it is granted by a rule of its own) | ${by.busyHome} ms | — |
| For comparison: \`omp --version\`, the floor of a hidden omp subcommand as launcher | ${by.ompStart} ms | — |
| \`omp-sandbox --probe\` (once per agent start) | ${by.probe} ms | — |
${cgroupRows}| Start-up: a whole \`omp -p\` answer, default sandbox vs \`--sandbox off\` | ${start.sandbox} ms vs ${start.off} ms (${(start.sandbox / start.off).toFixed(2)}×) | unchanged |

hyperfine -N, 5 interleaved rounds of 60 runs (5 warm-up), the median of the rounds' medians. The launcher is a
separate ~350 KB Rust binary rather than an omp subcommand because a Bun start-up per command costs the
\`omp --version\` line above, several times the target.
`;
  writeFileSync(join(RESULTS, "sandbox.md"), md);
  process.stdout.write(md);
}

await main();
