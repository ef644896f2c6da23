// What the agent's start-up path loads. With --splitting, every module the agent command and the
// interactive mode import statically is loaded and evaluated before the first request or frame;
// each of these costs milliseconds there (measured in bench/results/agent.md and
// interactive.md), so they may only be loaded on first use. Checked on the bundler's own module
// graph, where type-only imports and macros are already gone.
import { expect, test } from "bun:test";
import { heavyImports, staticGraph } from "../support/module-graph.ts";

const ENTRIES = ["cli/main.ts", "cli/options/agent-argv.ts", "cli/commands/agent.ts", "cli/interactive/index.ts", "cli/shared/command-error.ts"];
/** Packages and built-in modules that must stay off the start-up path. */
const HEAVY = ["@agentclientprotocol/sdk", "zod", "yaml", "commander", "node:tty", "node:os", "node:crypto", "node:net", "node:dns", "node:dns/promises", "node:child_process", "bun:sqlite", "node:stream", "node:events", "@mozilla/readability", "linkedom", "turndown", "unpdf", "mammoth", "tar"];

test("the agent command and the interactive mode load no zod, yaml, commander, node:os, node:tty, node:net or bun:sqlite up front", async () => {
  const graph = await staticGraph(ENTRIES);
  const { reached } = graph;
  expect(heavyImports(graph, HEAVY)).toEqual([]);
  // The check sees the graph at all: the start-up path does reach the agent loop and the config loader.
  expect(reached.has("core/agent/agent.ts")).toBe(true);
  expect(reached.has("core/config/settings.ts")).toBe(true);
});

test("a headless run's start-up path leaves out code only some flags use", async () => {
  // Without the interactive mode, whose session picker does list sessions.
  const { reached } = await staticGraph(ENTRIES.filter((entry) => entry !== "cli/interactive/index.ts"));
  // The session listing serves -c, -r and --resume alone; the agent loop needs only the name entry's type.
  expect(reached.has("core/session/listing.ts")).toBe(false);
  expect(reached.has("core/session/name-entry.ts")).toBe(true);
  expect(reached.has("core/agent/agent.ts")).toBe(true);
});

test("a first prompt's memory recall loads the store, and bun:sqlite, only when a memory database exists", async () => {
  // The agent loads this module for every new session's first prompt (core/agent/runtime.ts).
  const graph = await staticGraph(["core/memory/session-block.ts"]);
  expect(heavyImports(graph, ["bun:sqlite"])).toEqual([]);
  expect(graph.reached.has("core/memory/store.ts")).toBe(false);
});
