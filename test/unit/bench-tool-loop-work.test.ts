// bench/tool-loop.ts works in a folder of its own: two runs at once do not wipe each other's trees, and none is left behind.
import { expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { tempDir } from "../support/temp.ts";

const ROOT = resolve(import.meta.dir, "..", "..");

test("two tool-loop benches at once both finish, and each removes its work folder", async () => {
  const tmp = tempDir("omp-test-bench-tmp-");
  const runs = [0, 1].map(() =>
    Bun.spawn([process.execPath, join(ROOT, "bench", "tool-loop.ts"), "--checkpoint-only"], { cwd: ROOT, env: { ...process.env, TMPDIR: tmp }, stdout: "pipe", stderr: "pipe" }),
  );
  for (const run of runs) {
    const [code, stderr] = [await run.exited, await new Response(run.stderr).text()];
    expect(code, stderr).toBe(0);
    expect(stderr).toContain("checkpoint per command:");
  }
  expect(readdirSync(tmp)).toEqual([]);
}, 120_000);
