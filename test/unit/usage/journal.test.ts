import { describe, expect, test } from "bun:test";
import { appendFileSync, existsSync, readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { appendUsage, usageJournalPath } from "../../../core/usage/journal.ts";
import { agentUsageDbPath, openAgentUsage } from "../../../core/usage/usage-db.ts";
import { tempDir } from "../../support/temp.ts";

const usage = (input: number) => ({ input, output: 2, cacheRead: 0, cacheWrite: 0, cost: { total: 0.5 } });

describe("the usage journal", () => {
  test("replies are appended without the store, folded in by the next opening with their own day; a torn line is skipped", () => {
    const env = { OMP_AGENT_DIR: join(tempDir("omp-usage-journal-"), "agent") };
    const journal = usageJournalPath(env);
    expect(appendUsage(journal, { day: "2026-01-02", client: "agent", provider: "anthropic", model: "m", failed: false, usage: usage(10) })).toBe(false);
    expect(appendUsage(journal, { day: "2026-01-02", client: "agent", provider: "anthropic", model: "m", failed: true, usage: usage(5) })).toBe(false);
    appendUsage(journal, { day: "2026-01-03", client: "agent", provider: "anthropic", model: "m", failed: false, usage: usage(1) });
    appendFileSync(journal, '{"day":"2026-01-03","client":"agent","prov');
    expect(existsSync(agentUsageDbPath(env))).toBe(false);
    const log = openAgentUsage(env)!;
    try {
      expect(existsSync(journal)).toBe(false);
      expect(log.rows().map((row) => [row.day, row.requests, row.errors, row.input_tokens, row.cost_usd])).toEqual([
        ["2026-01-02", 2, 1, 15, 1],
        ["2026-01-03", 1, 0, 1, 0.5],
      ]);
    } finally {
      log.close();
    }
    // Opened again with nothing journaled: the same rows, nothing counted twice.
    const again = openAgentUsage(env)!;
    expect(again.rows().reduce((sum, row) => sum + row.requests, 0)).toBe(3);
    again.close();
  });

  test("the journal's folder is made private when missing, and again when it went away between replies", () => {
    const env = { OMP_AGENT_DIR: join(tempDir("omp-usage-journal-"), "deep", "agent") };
    const journal = usageJournalPath(env);
    appendUsage(journal, { day: "2026-01-02", client: "agent", provider: "anthropic", model: "m", failed: false, usage: usage(1) });
    expect(statSync(env.OMP_AGENT_DIR).mode & 0o777).toBe(0o700);
    expect(statSync(journal).mode & 0o777).toBe(0o600);
    rmSync(env.OMP_AGENT_DIR, { recursive: true });
    appendUsage(journal, { day: "2026-01-03", client: "agent", provider: "anthropic", model: "m", failed: false, usage: usage(2) });
    expect(readFileSync(journal, "utf8")).toContain('"day":"2026-01-03"');
  });

  test("nothing recorded: no store is made; a journal past its limit asks to be folded", () => {
    const env = { OMP_AGENT_DIR: join(tempDir("omp-usage-journal-"), "agent") };
    expect(openAgentUsage(env)).toBeUndefined();
    const journal = join(tempDir("omp-usage-journal-"), "usage.jsonl");
    let folded = false;
    for (let i = 0; i < 5000 && !folded; i++) folded = appendUsage(journal, { day: "2026-01-02", client: "agent", provider: "anthropic", model: "m".repeat(40), failed: false, usage: usage(i) });
    expect(folded).toBe(true);
  });
});
