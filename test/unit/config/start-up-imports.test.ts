// Start-up loads config through these modules; with --splitting every module they import
// statically is evaluated at start-up, so none of them may reach zod or yaml (the slow path is
// required on a cache miss only). Checked on the bundler's own module graph, where type-only
// imports and macros are already gone.
import { expect, test } from "bun:test";
import { join, resolve } from "node:path";
import { scratchDir } from "./scratch.ts";

const ROOT = resolve(import.meta.dir, "..", "..", "..");
/** What cli/agent.ts calls to load configuration before the first request. */
const START_UP = ["core/config/settings.ts", "core/config/models.ts", "core/config/dotenv.ts"];

test("loading settings, models.yml and .env imports neither zod nor yaml; the slow path is a lazy chunk", async () => {
  const result = await Bun.build({
    entrypoints: START_UP.map((path) => join(ROOT, path)),
    root: ROOT,
    outdir: scratchDir("omp-start-up-imports-"),
    target: "bun",
    format: "esm",
    splitting: true,
    metafile: true,
  });
  expect(result.success).toBe(true);
  const { inputs } = result.metafile!;

  const reached = new Set<string>();
  const pending = [...START_UP];
  while (pending.length > 0) {
    const path = pending.pop()!;
    if (reached.has(path)) continue;
    reached.add(path);
    for (const imported of inputs[path]?.imports ?? []) {
      if (imported.kind === "import-statement" && !imported.external) pending.push(imported.path);
    }
  }
  const packages = [...reached].filter((path) => path.includes("node_modules/")).map((path) => path.split("node_modules/")[1]!.split("/")[0]);
  expect([...new Set(packages)]).toEqual([]);

  // The graph is the one that matters: the slow path is there, behind a require that loads its own chunk.
  const lazy = ["core/config/settings.ts", "core/config/models.ts"].map((path) => inputs[path]!.imports.find((imported) => imported.kind === "require-call"));
  for (const imported of lazy) expect(imported?.entryPoint).toBe("core/config/validate-files.ts");
  expect(Object.keys(inputs).some((path) => path.includes("node_modules/zod/"))).toBe(true);
  expect(Object.keys(inputs).some((path) => path.includes("node_modules/yaml/"))).toBe(true);
});
