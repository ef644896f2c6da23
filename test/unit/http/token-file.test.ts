import { expect, test } from "bun:test";
import { mkdtempSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureTokenFile } from "../../../core/http/token-file.ts";

test("a new token is base64url that never starts with a dash (it is pasted into command lines), kept 0600, and reused", () => {
  const path = join(mkdtempSync(join(tmpdir(), "omp-token-")), "service.token");
  // 1 in 64 random tokens used to start with "-": 1,000 draws find that with near certainty.
  for (let i = 0; i < 1000; i++) {
    const { token, created } = ensureTokenFile(path, { regenerate: true, holder: "test" });
    expect(created).toBe(true);
    expect(token).toMatch(/^[A-Za-z0-9_][A-Za-z0-9_-]{42}$/);
  }
  expect(statSync(path).mode & 0o777).toBe(0o600);
  const kept = ensureTokenFile(path, { holder: "test" });
  expect(kept.created).toBe(false);
  expect(ensureTokenFile(path, { holder: "test" }).token).toBe(kept.token);
});
