import { declarationsPlugin } from "../../embed/declarations-plugin.ts";
import { expect } from "bun:test";
import { join, resolve } from "node:path";
import { tempDir } from "./temp.ts";

const ROOT = resolve(import.meta.dir, "..", "..");

export interface StaticGraph {
  /** The bundler's metafile inputs, for checks of their own. */
  inputs: Bun.BuildMetafile["inputs"];
  /** Every source file `entries` import statically (with --splitting, all of it is evaluated up front). */
  reached: Set<string>;
  /** Built-in modules they import (`node:os`, `bun:sqlite`), each with one importer. */
  external: Map<string, string>;
  /** npm packages among `reached`. */
  packages: string[];
}

/**
 * What `entries` (paths from the repository root) load at once, on the bundler's own module graph:
 * type-only imports and macros are already gone there, and lazy imports are not followed.
 */
export async function staticGraph(entries: string[]): Promise<StaticGraph> {
  // As omp is built: the tool declarations imported statically (embed/declarations-plugin.ts).
  const result = await Bun.build({ entrypoints: entries.map((path) => join(ROOT, path)), root: ROOT, outdir: tempDir("omp-module-graph-"), target: "bun", format: "esm", splitting: true, metafile: true, plugins: [declarationsPlugin] });
  expect(result.success).toBe(true);
  const { inputs } = result.metafile!;
  const reached = new Set<string>();
  const external = new Map<string, string>();
  const pending = [...entries];
  while (pending.length > 0) {
    const path = pending.pop()!;
    if (reached.has(path)) continue;
    reached.add(path);
    for (const imported of inputs[path]?.imports ?? []) {
      if (imported.kind !== "import-statement") continue;
      // The bundler drops the `node:` of built-ins (`os`); it is put back so they read as imported.
      if (imported.external) external.set(imported.path.includes(":") ? imported.path : `node:${imported.path}`, path);
      else pending.push(imported.path);
    }
  }
  const packages = [...new Set([...reached].filter((path) => path.includes("node_modules/")).map((path) => path.split("node_modules/")[1]!.split("/")[0]!))];
  return { inputs, reached, external, packages };
}

/** Which of `heavy` (package names, `node:` built-ins) the graph loads up front, each with an importer where known. */
export function heavyImports(graph: StaticGraph, heavy: readonly string[]): string[] {
  return [
    ...graph.packages.filter((name) => heavy.includes(name)),
    ...[...graph.external].filter(([name]) => heavy.includes(name)).map(([name, by]) => `${name} (imported by ${by})`),
  ];
}
