// The interactive mode's first run with no credential at all, in a real terminal (tmux): instead
// of exiting it offers set-up, stores the pasted key in the vault, and carries on to the prompt.
import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/omp.ts";
import { startStandin } from "../support/standin/index.ts";
import { Tty } from "../support/tty-tmux.ts";
import { READY } from "../support/tty-session.ts";

setDefaultTimeout(60_000);
const standin = await startStandin({ script: [{ text: "Hello from the stored key." }] });
afterAll(() => standin.close());

describe("first run", () => {
  test("no key and no local server: set-up takes a pasted key into the vault, then the session starts on it", async () => {
    const home = tempDir("omp-first-run-home-");
    const cwd = tempDir("omp-first-run-project-");
    const tty = Tty.start({ home, cwd, env: { ANTHROPIC_BASE_URL: standin.url, OMP_RETRY_BASE_MS: "20", OMP_NO_UPDATE_CHECK: "1" } });
    try {
      await tty.waitFor("omp has no model to use yet");
      expect(tty.screen()).toContain("paste an API key for Anthropic");
      tty.type("1");
      tty.press("Enter");
      await tty.waitFor("input hidden");
      tty.type("sk-ant-firstrun-0123456789abcdef");
      tty.press("Enter");
      await tty.waitFor(READY);
      expect(tty.screen()).not.toContain("sk-ant-firstrun-0123456789abcdef");
      const db = join(home, ".omp", "agent", "agent.db");
      expect(existsSync(db)).toBe(true);
      expect(statSync(db).mode & 0o777).toBe(0o600);
      tty.type("hi");
      tty.press("Enter");
      await tty.waitFor("Hello from the stored key.");
      const request = standin.requests.find((r) => r.method === "POST")!;
      expect(request.headers["x-api-key"]).toBe("sk-ant-firstrun-0123456789abcdef");
    } finally {
      tty.kill();
    }
  });
});
