import { tempDir } from "../../support/temp.ts";

/** A fresh directory, removed when the test run ends. */
export function scratchDir(prefix = "omp-unit-"): string {
  return tempDir(prefix);
}
