// What a killed omp left is swept by owner (pid and start time), so a live omp's commands are never
// touched, even when a dead omp's pid has been reused by another process. The process-tag
// mechanism here (the cgroup one is exercised on dist/omp by test/e2e/shell-jobs.test.ts).
import { afterAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { JOB_TAG_VAR, containmentMechanism, createContainer, sweepOrphans } from "../../core/shell/containment.ts";

function startTime(pid: number): string {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19]!;
}

const alive = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]![0] !== "Z";
  } catch {
    return false;
  }
};

// Read on the containment module's first use, which comes after this.
process.env.OMP_NO_CGROUP = "1";

const spawned: ReturnType<typeof Bun.spawn>[] = [];
afterAll(() => {
  for (const child of spawned) child.kill("SIGKILL");
});

function sleeper(tag: string) {
  const child = Bun.spawn(["sleep", "600"], { env: { ...process.env, [JOB_TAG_VAR]: tag }, stdout: "ignore", stderr: "ignore" });
  spawned.push(child);
  return child;
}

test("the sweep ends tagged processes of a dead or reused-pid owner and leaves a live owner's alone", async () => {
  // This test process stands for a live omp: its pid with its true start time.
  const live = sleeper(`${process.pid}-${startTime(process.pid)}-999`);
  // Its pid, but another start time: the omp that had this pid is gone and the pid was reused.
  const reused = sleeper(`${process.pid}-${Number(startTime(process.pid)) + 1}-1`);
  // A pid that is not running at all.
  const dead = sleeper(`4194303-12345-7`);
  await Bun.sleep(50);
  expect(sweepOrphans()).toBeGreaterThanOrEqual(2);
  await Bun.sleep(100);
  expect(alive(live.pid)).toBe(true);
  expect(alive(reused.pid)).toBe(false);
  expect(alive(dead.pid)).toBe(false);
});

test("a container ends every process it holds, including ones that left the process group", async () => {
  const container = createContainer();
  const child = Bun.spawn([...container.argvPrefix, "bash", "-c", "setsid sleep 600 & (sleep 600 &); sleep 600"], {
    env: { ...process.env, ...container.env },
    stdout: "ignore",
    stderr: "ignore",
  });
  spawned.push(child);
  const sleeps = () => container.pids().filter((pid) => readFileSync(`/proc/${pid}/cmdline`, "utf8").startsWith("sleep\0"));
  for (let i = 0; i < 200 && sleeps().length < 3; i++) await Bun.sleep(20);
  const pids = container.pids();
  expect(sleeps().length).toBe(3);
  container.destroy();
  await child.exited;
  await Bun.sleep(100);
  expect(pids.filter(alive)).toEqual([]);
  expect(containmentMechanism().mechanism).toBe("process-tag");
});
