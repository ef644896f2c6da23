import { existsSync, mkdirSync, readFileSync, readdirSync, rmdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { sandboxSupport } from "../sandbox/launcher-status.ts";

/**
 * Keeps track of every process a command starts, so that all of them end with the command — even
 * those that left its process group (`setsid`, `(cmd &)`) or were reparented to init.
 *
 * - `cgroup`: each command runs in a cgroup v2 of its own, made under omp's own cgroup when that is
 *   writable (root on most CI machines, a delegated user slice elsewhere). The kernel keeps every
 *   descendant in it, and `cgroup.kill` ends them all at once, fork bombs included.
 * - `process-tag`: no writable cgroup. Every command's environment carries OMP_JOB=<tag>, which its
 *   descendants inherit; ending the command signals every process whose environment has the tag.
 *   A process that clears its environment escapes this one.
 *
 * Either way the command's first process gets SIGKILL when omp dies (util-linux `setpriv
 * --pdeathsig`, when installed), so a killed omp's shell goes with it at once.
 *
 * Both name the omp that owns them by pid and start time, so the next omp to start ends what a
 * killed one left behind (`sweepOrphans`) and never touches a live omp's commands, even on a reused pid.
 */
export type ContainmentMechanism = "cgroup" | "process-tag";

export const JOB_TAG_VAR = "OMP_JOB";

export interface Container {
  readonly tag: string;
  /** Put before the command's argv: puts the process in its cgroup before anything else runs. */
  readonly argvPrefix: string[];
  /** The same as the sandbox launcher's own options (-C, -D), which spare the two programs the prefix starts. */
  readonly launcherOptions: string[];
  /** Added to the command's environment. */
  readonly env: Record<string, string>;
  /** Live processes of the command (under the sandbox launcher: its init and all below, not the launcher itself). */
  pids(): number[];
  signal(signal: NodeJS.Signals): void;
  /** SIGKILL to everything in it, then forget it; synchronous so it can run in an exit handler. */
  destroy(): void;
}

/** `<pid>-<start time in clock ticks>`: names this process unambiguously even after its pid is reused. */
function processKey(pid: number | "self"): string | undefined {
  const start = startTime(pid);
  return start === undefined ? undefined : `${pid === "self" ? process.pid : pid}-${start}`;
}

function startTime(pid: number | "self"): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Field 22, counted after the parenthesised command name (which may hold spaces).
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
  } catch {
    return undefined;
  }
}

function ownerAlive(owner: string): boolean {
  const [pid] = owner.split("-");
  return processKey(Number(pid)) === owner;
}

function procStatState(pid: string): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0];
  } catch {
    return undefined;
  }
}

/** Our cgroup v2 directory when this process may make cgroups in it, else undefined. Found once. */
let cgroupBase: string | null | undefined;
function findCgroupBase(): string | undefined {
  if (cgroupBase !== undefined) return cgroupBase ?? undefined;
  cgroupBase = null;
  if (process.env.OMP_NO_CGROUP === "1") return undefined;
  try {
    const own = readFileSync("/proc/self/cgroup", "utf8")
      .split("\n")
      .find((line) => line.startsWith("0::"));
    if (!own) return undefined;
    const mount = readFileSync("/proc/self/mountinfo", "utf8")
      .split("\n")
      .map((line) => line.split(" "))
      .find((fields) => fields[fields.indexOf("-") + 1] === "cgroup2");
    if (!mount) return undefined;
    // When omp runs in a cgroup namespace the path is relative to the mount's root, which is field 4.
    const root = mount[3]!;
    const relative = own.slice(3).startsWith(root) ? own.slice(3 + (root === "/" ? 0 : root.length)) : own.slice(3);
    const base = join(mount[4]!, relative);
    const probe = join(base, `omp-probe-${process.pid}`);
    mkdirSync(probe);
    const usable = existsSync(join(probe, "cgroup.kill"));
    rmdirSync(probe);
    if (usable) cgroupBase = base;
  } catch {
    // Not writable, not cgroup v2, or no /proc: the process-tag mechanism it is.
  }
  return cgroupBase ?? undefined;
}

export function containmentMechanism(): { mechanism: ContainmentMechanism; where?: string; parentDeathSignal: boolean } {
  const base = findCgroupBase();
  const parentDeathSignal = parentDeathPrefix().length > 0;
  return base ? { mechanism: "cgroup", where: base, parentDeathSignal } : { mechanism: "process-tag", parentDeathSignal };
}

/** Processes whose environment holds `OMP_JOB=<tag>` (or, with a prefix, a tag starting with it). */
function taggedPids(match: (tag: string) => boolean): number[] {
  const found: number[] = [];
  const needle = `${JOB_TAG_VAR}=`;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    let environ: string;
    try {
      environ = readFileSync(`/proc/${entry}/environ`, "latin1");
    } catch {
      continue;
    }
    const at = environ.indexOf(needle);
    if (at === -1 || (at > 0 && environ[at - 1] !== "\0")) continue;
    const end = environ.indexOf("\0", at);
    const tag = environ.slice(at + needle.length, end === -1 ? undefined : end);
    const state = procStatState(entry);
    if (match(tag) && state !== undefined && state !== "Z" && state !== "X") found.push(Number(entry));
  }
  return found;
}

function signalAll(pids: number[], signal: NodeJS.Signals): void {
  for (const pid of pids) {
    try {
      process.kill(pid, signal);
    } catch {
      // Already gone.
    }
  }
}

function cgroupPids(dir: string): number[] {
  try {
    return readFileSync(join(dir, "cgroup.procs"), "utf8")
      .split("\n")
      .filter(Boolean)
      .map(Number)
      .filter((pid) => {
        const state = procStatState(String(pid));
        return state !== undefined && state !== "Z" && state !== "X";
      });
  } catch {
    return [];
  }
}

function cpuUsed(dir: string): boolean {
  try {
    return Number(/^usage_usec (\d+)/m.exec(readFileSync(join(dir, "cpu.stat"), "utf8"))?.[1] ?? 0) > 0;
  } catch {
    return false;
  }
}

/** Kills a cgroup's processes and removes it; a cgroup still emptying is retried for up to a second. */
function destroyCgroup(dir: string): void {
  try {
    writeFileSync(join(dir, "cgroup.kill"), "1");
  } catch {
    // Already removed.
    return;
  }
  const deadline = Date.now() + 1000;
  for (;;) {
    try {
      rmdirSync(dir);
      return;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT" || Date.now() > deadline) return;
      Bun.sleepSync(5);
    }
  }
}

/** `setpriv --pdeathsig KILL --` when util-linux's setpriv is installed; found once. */
let deathSignal: string[] | undefined;
function parentDeathPrefix(): string[] {
  deathSignal ??= Bun.which("setpriv") ? ["setpriv", "--pdeathsig", "KILL", "--"] : [];
  return deathSignal;
}

/**
 * The sandbox launcher, when this machine has one that runs: its `--contain` starts a command
 * outside the sandbox born in its cgroup, where moving a shell in (`echo $$ > cgroup.procs`) makes
 * the kernel wait for an RCU grace period (13 ms a command at load 5, bench/results/sandbox.md).
 */
function containLauncher(): string | undefined {
  const support = sandboxSupport();
  return support.kind === "none" ? undefined : support.launcher;
}

/** What puts a command outside the sandbox in `dir`, its cgroup, before it runs. */
function cgroupPrefix(dir: string): string[] {
  const launcher = containLauncher();
  return launcher ? [launcher, "--contain", "-C", dir, "-D", "--"] : ["/bin/sh", "-c", 'echo $$ > "$0/cgroup.procs" 2>/dev/null; exec "$@"', dir];
}

const live = new Set<Container>();
let sequence = 0;
let exitHookInstalled = false;
/** This process's key: read from /proc once, not once per command (it cannot change while omp runs). */
let ownKey: string | undefined;

/** A container for one command; see the module comment. */
export function createContainer(): Container {
  ownKey ??= processKey("self") ?? `${process.pid}-0`;
  const owner = ownKey;
  const tag = `${owner}-${++sequence}`;
  const base = findCgroupBase();
  let dir: string | undefined;
  if (base) {
    try {
      dir = join(base, `omp-${tag}`);
      mkdirSync(dir);
    } catch {
      dir = undefined;
    }
  }
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    // Commands and jobs end with omp: an exit, a crash or a signal omp handles all pass through here.
    process.on("exit", () => {
      for (const container of [...live]) container.destroy();
    });
  }
  const byTag = () => taggedPids((found) => found === tag);
  // The cgroup holds the command only if its first process moved itself in (it then used CPU
  // there); when that write failed, the environment tag is what finds the command's processes.
  const members = () => {
    if (dir) {
      const inGroup = cgroupPids(dir);
      if (inGroup.length > 0 || cpuUsed(dir)) return inGroup;
    }
    return byTag();
  };
  const container: Container = {
    tag,
    // The write happens in the command's own first process, so nothing it starts can be outside.
    argvPrefix: [...(dir ? cgroupPrefix(dir) : []), ...parentDeathPrefix()],
    launcherOptions: [...(dir ? ["-C", dir] : []), "-D"],
    env: { [JOB_TAG_VAR]: tag },
    pids: members,
    signal: (signal) => signalAll(members(), signal),
    destroy() {
      live.delete(container);
      // CPU time was spent in the cgroup: the command's first process moved itself in, so
      // everything it started is there too, and scanning every process's environment can be skipped.
      const placed = dir !== undefined && cpuUsed(dir);
      if (dir) destroyCgroup(dir);
      if (placed) return;
      // Tagged processes (no cgroup, or its write failed): a few rounds catch what forks meanwhile.
      for (let round = 0; round < 5; round++) {
        const pids = byTag();
        if (pids.length === 0) break;
        signalAll(pids, "SIGKILL");
      }
    },
  };
  live.add(container);
  return container;
}

/**
 * The argv that runs `command` in `container`: a command the sandbox launcher confines gets the
 * launcher's options (its namespaces' init is born in the cgroup, and it asks for SIGKILL at omp's
 * death before it forks or execs), any other the prefix of programs that do it.
 */
export function containedArgv(container: Container, command: { argv: readonly string[]; confinement: string }): string[] {
  if (command.confinement === "landlock") return [command.argv[0]!, ...container.launcherOptions, ...command.argv.slice(1)];
  return [...container.argvPrefix, ...command.argv];
}

/**
 * Ends what omp processes that are gone (killed with SIGKILL, crashed) left running: their cgroups
 * or their tagged processes. Returns how many cgroups or processes it ended.
 */
export function sweepOrphans(): number {
  let ended = 0;
  const base = findCgroupBase();
  if (base) {
    // Every command of an omp that could make cgroups ran in one (or was tagged, if its write
    // failed, which the next omp without cgroups would sweep): the costly scan of every
    // process's environment is not needed here.
    for (const name of readdirSync(base)) {
      const match = /^omp-(\d+-\d+)-\d+$/.exec(name);
      if (!match || ownerAlive(match[1]!)) continue;
      destroyCgroup(join(base, name));
      ended++;
    }
    return ended;
  }
  try {
    const orphans = taggedPids((tag) => {
      const owner = /^(\d+-\d+)-\d+$/.exec(tag)?.[1];
      return owner !== undefined && !ownerAlive(owner);
    });
    signalAll(orphans, "SIGKILL");
    ended += orphans.length;
  } catch {
    // No /proc.
  }
  return ended;
}
