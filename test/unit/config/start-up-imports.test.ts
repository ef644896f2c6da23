// Start-up loads config through these modules; with --splitting every module they import
// statically is evaluated at start-up, so none of them may reach zod or yaml (the slow path is
// required on a cache miss only). Checked on the bundler's own module graph, where type-only
// imports and macros are already gone.
import { expect, test } from "bun:test";
import { staticGraph } from "../../support/module-graph.ts";

/** What cli/commands/agent.ts calls to load configuration before the first request. */
const START_UP = ["core/config/settings.ts", "core/config/models.ts", "core/config/dotenv.ts"];

test("loading settings, models.yml and .env imports neither zod nor yaml; the slow path is a lazy chunk", async () => {
  const { inputs, packages } = await staticGraph(START_UP);
  expect(packages).toEqual([]);

  // The graph is the one that matters: the slow path is there, behind a require that loads its own chunk.
  const lazy = ["core/config/settings.ts", "core/config/models.ts"].map((path) => inputs[path]!.imports.find((imported) => imported.kind === "require-call"));
  for (const imported of lazy) expect(imported?.entryPoint).toBe("core/config/validate-files.ts");
  expect(Object.keys(inputs).some((path) => path.includes("node_modules/zod/"))).toBe(true);
  expect(Object.keys(inputs).some((path) => path.includes("node_modules/yaml/"))).toBe(true);
});
