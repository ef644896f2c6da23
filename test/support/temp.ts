import { afterAll } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sweepStaleTemp } from "./stale-temp.ts";

/**
 * Temp dirs for tests, removed once the run ends. bunfig.toml preloads this module, which makes
 * its afterAll a hook of the whole run: a hook at the top of a shared module that test files
 * import is registered once, for the first file only, and every later file's dirs were left
 * behind (gigabytes per full run: some hold copies of the binary).
 */
const made = new Set<string>();
// What killed runs left behind goes first (see stale-temp.ts).
sweepStaleTemp(tmpdir());
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
  made.clear();
});

export function tempDir(prefix = "omp-test-"): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.add(dir);
  return dir;
}
