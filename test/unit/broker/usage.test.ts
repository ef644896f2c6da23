// GET /v1/usage from the vault: the usage limits clients met, the blocks in force, what the wire
// schema accepts, and nothing for credentials nobody saw limited or that are gone.
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { CredentialStore } from "../../../core/auth/store.ts";
import { recordUsageLimit, usageReports } from "../../../core/broker/usage.ts";
import { UsageResponse } from "../../../core/broker/wire.ts";
import { scratchDir } from "../config/scratch.ts";

const open = () => CredentialStore.open(join(scratchDir("omp-usage-"), "agent", "agent.db"));

describe("usage reports", () => {
  test("a limit met is exhausted until it resets, then unknown with the time it reset; the schema accepts both", () => {
    const store = open();
    const row = store.upsert("openai-codex", { type: "oauth", access: "a", refresh: "r", expires: Date.now() + 3_600_000, email: "me@example.com", accountId: "acct-1" });
    const other = store.upsert("anthropic", { type: "api_key", key: "sk-ant-api03-neverlimitedneverlimited0001" });
    const now = Date.now();
    recordUsageLimit(store, row, "openai-codex", now + 60_000, now);

    const during = UsageResponse.parse(usageReports(store, now));
    expect(during.reports).toHaveLength(1);
    expect(during.reports[0]).toMatchObject({
      provider: "openai-codex",
      fetchedAt: now,
      limits: [{ scope: { provider: "openai-codex", credentialId: row.id, account: "me@example.com", accountId: "acct-1" }, window: { resetsAt: now + 60_000 }, status: "exhausted", amount: { usedFraction: 1, remainingFraction: 0 } }],
    });
    expect(JSON.stringify(during)).not.toContain(`"credentialId":${other.id}`);

    const after = UsageResponse.parse(usageReports(store, now + 120_000));
    expect(after.reports[0]!.limits[0]).toMatchObject({ status: "unknown", amount: { unit: "unknown" } });
    expect(after.reports[0]!.limits[0]!.notes![0]).toContain(new Date(now + 60_000).toISOString());
    store.close();
  });

  test("a block set by any process sharing the vault is reported; a removed credential is not", () => {
    const store = open();
    const row = store.upsert("anthropic", { type: "api_key", key: "sk-ant-api03-blockedlocallyblockedlocally0002" });
    const until = Date.now() + 600_000;
    store.block(row.id, "anthropic", until);
    expect(usageReports(store).reports[0]!.limits[0]).toMatchObject({ status: "exhausted", window: { resetsAt: until } });
    store.disable(row.id, "removed by user");
    expect(usageReports(store).reports).toEqual([]);
    store.close();
  });
});
