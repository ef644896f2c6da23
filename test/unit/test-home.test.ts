// The suite's own HOME (test/support/test-home.ts): code that falls back on HOME writes there, never to the real one.
import { expect, test } from "bun:test";
import { existsSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { agentDir, homeDir } from "../../core/paths.ts";
import { REAL_HOME } from "../support/test-home.ts";

test("the run's HOME is a temp dir of its own, and ~/.omp/agent resolves inside it", () => {
  expect(homeDir()).not.toBe(REAL_HOME);
  expect(realpathSync(homeDir()).startsWith(realpathSync(tmpdir()))).toBe(true);
  expect(agentDir()).toBe(join(homeDir(), ".omp", "agent"));
  expect(existsSync(homeDir())).toBe(true);
});
