// What the agent's start-up path loads. With --splitting, every module the agent command and the
// interactive mode import statically is loaded and evaluated before the first request or frame;
// each of these costs milliseconds there (measured in bench/results/agent.md and
// interactive.md), so they may only be loaded on first use. Checked on the bundler's own module
// graph, where type-only imports and macros are already gone.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "..", "..");
const ENTRIES = ["cli/main.ts", "cli/agent-argv.ts", "cli/agent.ts", "cli/interactive/index.ts", "cli/command-error.ts"];
/** Packages and built-in modules that must stay off the start-up path. */
const HEAVY = ["zod", "yaml", "commander", "node:tty", "node:os", "node:crypto", "node:child_process", "bun:sqlite", "node:stream", "node:events"];

const out = mkdtempSync(join(tmpdir(), "omp-start-up-"));
afterAll(() => rmSync(out, { recursive: true, force: true }));

test("the agent command and the interactive mode load no zod, yaml, commander, node:os, node:tty or bun:sqlite up front", async () => {
  const result = await Bun.build({ entrypoints: ENTRIES.map((path) => join(ROOT, path)), root: ROOT, outdir: out, target: "bun", format: "esm", splitting: true, metafile: true });
  expect(result.success).toBe(true);
  const { inputs } = result.metafile!;

  const reached = new Set<string>();
  const external = new Map<string, string>();
  const pending = [...ENTRIES];
  while (pending.length > 0) {
    const path = pending.pop()!;
    if (reached.has(path)) continue;
    reached.add(path);
    for (const imported of inputs[path]?.imports ?? []) {
      if (imported.kind !== "import-statement") continue;
      if (imported.external) external.set(imported.path, path);
      else pending.push(imported.path);
    }
  }
  const packages = [...reached].filter((path) => path.includes("node_modules/")).map((path) => path.split("node_modules/")[1]!.split("/")[0]!);
  const offenders = [
    ...[...new Set(packages)].filter((name) => HEAVY.includes(name)),
    ...[...external].filter(([name]) => HEAVY.includes(name)).map(([name, by]) => `${name} (imported by ${by})`),
  ];
  expect(offenders).toEqual([]);
  // The check sees the graph at all: the start-up path does reach the agent loop and the config loader.
  expect(reached.has("core/agent/agent.ts")).toBe(true);
  expect(reached.has("core/config/settings.ts")).toBe(true);
});
