/**
 * `bun embed/record-bytecode-order.ts`: records which functions `omp -p hi` runs into
 * embed/bytecode-order.txt, which the build lays out first (embed/build.ts, BYTECODE_ORDER). Run it
 * on a fresh dist/omp (OMP_BIN for another) after start-up changed much, then build again. The run
 * is a user's every run: against the provider stand-in, in a project that is a git repository (the
 * system prompt's git summary runs there, and its functions laid out elsewhere cost a run in a
 * repository ~0.4 MiB of scattered pages), its natives already extracted by a first run.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { startStandin } from "../test/support/standin/index.ts";
import { BYTECODE_ORDER } from "./build.ts";

const OMP = process.env.OMP_BIN ?? resolve(import.meta.dir, "..", "dist", "omp");

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), "omp-bytecode-order-"));
  const standin = await startStandin({ fast: true, loop: true });
  standin.setScript([{ text: "hello" }]);
  const recorded = join(work, "order.txt");
  const project = join(work, "project");
  try {
    mkdirSync(project);
    writeFileSync(join(project, "README.md"), "a project\n");
    for (const args of [["init", "-q"], ["add", "README.md"], ["-c", "user.name=omp", "-c", "user.email=omp@example.invalid", "commit", "-q", "-m", "start"]]) {
      const git = Bun.spawnSync(["git", ...args], { cwd: project, env: { PATH: process.env.PATH ?? "", HOME: work }, stderr: "pipe" });
      if (git.exitCode !== 0) throw new Error(`git ${args.join(" ")} failed: ${git.stderr.toString()}`);
    }
    for (const record of [false, true]) {
      const env: Record<string, string> = { PATH: process.env.PATH ?? "", HOME: work, ANTHROPIC_BASE_URL: standin.url, ANTHROPIC_API_KEY: "sk-ant-bench-0123456789" };
      if (record) env.BUN_BYTECODE_ORDER_OUT = recorded;
      // Not spawnSync: the stand-in answers from this process's event loop.
      const child = Bun.spawn([OMP, "-p", "--model", "anthropic/claude-sonnet-5-5", "hi"], { cwd: project, env, stdout: "ignore", stderr: "pipe" });
      const [stderr, code] = await Promise.all([new Response(child.stderr).text(), child.exited]);
      if (code !== 0) throw new Error(`${OMP} -p hi failed (${code}): ${stderr.slice(-500)}`);
    }
    // The K lines name each function the run did not use (26,000 of them): the layout is the
    // same without them (the same peak RSS) and the file a fifth of the size.
    const lines = readFileSync(recorded, "utf8").split("\n").filter((line) => line !== "" && !line.startsWith("K "));
    writeFileSync(BYTECODE_ORDER, `${lines.join("\n")}\n`);
    console.error(`wrote ${BYTECODE_ORDER}: ${lines.filter((line) => line.startsWith("F ")).length} functions`);
  } finally {
    await standin.close();
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
