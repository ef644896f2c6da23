import { join, resolve } from "node:path";

/** The repository's top folder, wherever a bench is started from. */
export const ROOT = resolve(import.meta.dir, "..");
/** The binary benched: this checkout's dist/omp, or OMP_BIN's. */
export const OMP = process.env.OMP_BIN ?? join(ROOT, "dist", "omp");
/** Where a bench records what it measured (`<name>.json` and `<name>.md`). */
export const RESULTS = join(ROOT, "bench", "results");
/** A bench's scratch folder, bench/work/<name>. */
export const workDir = (name: string) => join(ROOT, "bench", "work", name);
