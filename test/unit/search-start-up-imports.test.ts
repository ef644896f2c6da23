// What `omp grep` and `omp find` load before they search: they take their arguments without
// commander (cli/commands/search-argv.ts) and find the cached addon without the extraction code, so a search
// starts as soon as the addon is loaded (bench/results/search.md measures what that is worth).
import { expect, test } from "bun:test";
import { heavyImports, staticGraph } from "../support/module-graph.ts";

const ENTRIES = ["cli/main.ts", "cli/commands/search-argv.ts"];
const HEAVY = ["zod", "yaml", "commander", "node:os", "node:crypto", "node:child_process", "node:zlib", "bun:sqlite", "node:stream", "node:events", "node:tty"];

test("grep and find reach the search without commander, node:os or the rest of the CLI", async () => {
  const graph = await staticGraph(ENTRIES);
  const { reached } = graph;
  expect(heavyImports(graph, HEAVY)).toEqual([]);
  expect(reached.has("cli/commands/grep.ts")).toBe(true);
  expect(reached.has("core/natives/load.ts")).toBe(true);
  for (const module of ["cli/program/program.ts", "cli/options/agent-argv.ts", "cli/commands/agent.ts", "core/config/settings.ts"]) expect(reached.has(module)).toBe(false);
});
