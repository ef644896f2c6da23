// The sweep of temp dirs that killed runs left (test/support/stale-temp.ts): stale and unused ones go, nothing else.
import { afterAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { STALE_AFTER_MS, sweepStaleTemp } from "../support/stale-temp.ts";
import { tempDir } from "../support/temp.ts";

const holders: Bun.Subprocess[] = [];
afterAll(() => {
  for (const holder of holders) holder.kill("SIGKILL");
});

function dirAged(root: string, name: string, ageMs: number, file = "f"): string {
  const dir = join(root, name);
  mkdirSync(dir);
  writeFileSync(join(dir, file), "x");
  const when = (Date.now() - ageMs) / 1000;
  utimesSync(join(dir, file), when, when);
  utimesSync(dir, when, when);
  return dir;
}

/** A bash that keeps a dir in use (its cwd, `script`'s open file, env or argument `$0`), once it says so; it waits on stdin. */
async function hold(script: string, options: { cwd?: string; env?: Record<string, string>; arg?: string } = {}): Promise<void> {
  const holder = Bun.spawn(["bash", "-c", `${script}; echo ready; read -r _`, options.arg ?? "holder"], { cwd: options.cwd, env: options.env, stdin: "pipe", stdout: "pipe" });
  holders.push(holder);
  const reader = holder.stdout.getReader();
  let seen = "";
  while (!seen.includes("ready")) {
    const { value, done } = await reader.read();
    if (done) throw new Error("the holder exited before it was ready");
    seen += new TextDecoder().decode(value);
  }
  reader.releaseLock();
}

test("removes omp-* dirs idle for hours that no process refers to, and keeps every other", async () => {
  const root = tempDir("omp-test-sweep-");
  const old = STALE_AFTER_MS + 60_000;
  const stale = dirAged(root, "omp-test-killed", old);
  const recent = dirAged(root, "omp-test-recent", 60_000);
  const touchedInside = dirAged(root, "omp-test-touched", old);
  writeFileSync(join(touchedInside, "new"), "written just now");
  const asCwd = dirAged(root, "omp-test-cwd", old);
  const openFile = dirAged(root, "omp-test-open", old);
  const asHome = dirAged(root, "omp-test-home-x", old);
  const asArgument = dirAged(root, "omp-test-arg", old);
  // A longer name starting alike must not keep the shorter one: this one is held, "omp-test-killed" is not.
  const longer = dirAged(root, "omp-test-killed2", old);
  const notOurs = dirAged(root, "bench-eval-old", old);
  const nativesCache = dirAged(root, `omp-${process.getuid!()}`, old);
  const elsewhere = dirAged(tempDir(), "target", old);
  symlinkSync(elsewhere, join(root, "omp-test-link"));

  await hold("true", { cwd: asCwd });
  await hold(`exec 3<${JSON.stringify(join(openFile, "f"))}`);
  await hold("true", { env: { ...process.env, HOME: asHome } as Record<string, string> });
  await hold("true", { arg: asArgument });
  await hold("true", { cwd: longer });

  const removed = sweepStaleTemp(root);
  expect(removed).toEqual([resolve(stale)]);
  expect(existsSync(stale)).toBe(false);
  for (const kept of [recent, touchedInside, asCwd, openFile, asHome, longer, notOurs, nativesCache, elsewhere, join(root, "omp-test-link")]) {
    expect(existsSync(kept)).toBe(true);
  }
}, 60_000);

test("the test preload sweeps TMPDIR when a run starts", async () => {
  const root = tempDir("omp-test-sweep-run-");
  const stale = dirAged(root, "omp-test-left-by-a-killed-run", STALE_AFTER_MS + 60_000);
  const fresh = dirAged(root, "omp-test-of-a-running-run", 60_000);
  const spec = join(root, "empty.test.ts");
  writeFileSync(spec, `import { test } from "bun:test";\ntest("nothing", () => {});\n`);
  const run = Bun.spawn([process.execPath, "test", spec], {
    cwd: resolve(import.meta.dir, "..", ".."),
    env: { ...process.env, TMPDIR: root },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [code, stderr] = [await run.exited, await new Response(run.stderr).text()];
  expect(code, stderr).toBe(0);
  expect(existsSync(stale)).toBe(false);
  expect(existsSync(fresh)).toBe(true);
}, 120_000);
