// What a bug thrown outside any command's promise chain looks like: one line after the exit
// handlers (the interactive mode's terminal restore) have run, and exit status 1.
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { tempDir } from "../support/temp.ts";

const handlers = resolve(import.meta.dir, "..", "..", "cli", "shared", "command-error.ts");

async function crash(body: string, env: Record<string, string> = {}): Promise<{ code: number; stderr: string }> {
  const script = join(tempDir("omp-unit-"), "crash.ts");
  writeFileSync(
    script,
    `import { installCrashHandlers } from ${JSON.stringify(handlers)};\n` +
      `installCrashHandlers();\n` +
      `process.on("exit", () => process.stderr.write("terminal restored\\n"));\n` +
      `${body}\n`,
  );
  const child = Bun.spawn([process.execPath, script], { stdio: ["ignore", "pipe", "pipe"], env: { PATH: process.env.PATH ?? "", ...env } });
  const [stderr, code] = await Promise.all([new Response(child.stderr).text(), child.exited]);
  return { code, stderr };
}

const HINT = "(this is a bug in omp; OMP_DEBUG=1 shows the stack trace)";

describe("crash handlers", () => {
  test("an exception thrown in a timer", async () => {
    const run = await crash(`setTimeout(() => { throw new TypeError("cannot read x\\nof undefined"); }, 1);`);
    expect(run.stderr).toBe(`terminal restored\nomp: internal error: TypeError: cannot read x ${HINT}\n`);
    expect(run.code).toBe(1);
  });

  test("a rejection nobody awaited", async () => {
    const run = await crash(`Promise.reject(new RangeError("too far")); setTimeout(() => {}, 1000);`);
    expect(run.stderr).toBe(`terminal restored\nomp: internal error: RangeError: too far ${HINT}\n`);
    expect(run.code).toBe(1);
  });

  test("an OmpError keeps its message and exit status; OMP_DEBUG adds a bug's stack", async () => {
    const omp = resolve(import.meta.dir, "..", "..", "core", "errors", "omp-error.ts");
    const run = await crash(`const { OmpError } = await import(${JSON.stringify(omp)}); setTimeout(() => { throw new OmpError("bad input", { exitCode: 2 }); }, 1);`);
    expect(run.stderr).toBe("terminal restored\nomp: bad input\n");
    expect(run.code).toBe(2);
    const debug = await crash(`setTimeout(() => { throw new Error("deep"); }, 1);`, { OMP_DEBUG: "1" });
    expect(debug.stderr).toContain(`omp: internal error: Error: deep ${HINT}\nError: deep\n    at `);
  });
});
