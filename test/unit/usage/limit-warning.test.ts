import { describe, expect, test } from "bun:test";
import { limitWarning } from "../../../core/usage/format.ts";
import { anthropicLimits, codexLimits } from "../../../core/usage/limits.ts";

const account = { id: 7, provider: "anthropic" as const, label: "me@example.com", credential: { type: "oauth" as const, access: "a", refresh: "r", expires: 0 } };
const now = Date.parse("2026-01-01T00:00:00Z");
const at = (hours: number) => new Date(now + hours * 3_600_000).toISOString();

describe("the status line's limit warning", () => {
  test("nothing below 80 %; a warning from 80 %; the error level from 95 %; the most used limit wins", () => {
    const report = (five: number, week: number) => [{ provider: "anthropic", fetchedAt: now, limits: anthropicLimits(account, { five_hour: { utilization: five, resets_at: at(1) }, seven_day: { utilization: week, resets_at: at(50) } }) }];
    expect(limitWarning(report(79.4, 10), now)).toBeUndefined();
    expect(limitWarning(report(80, 10), now)).toEqual({ text: "5-hour limit 80% · resets in 1h 0m", level: "warning" });
    expect(limitWarning(report(94, 95), now)).toEqual({ text: "weekly limit 95% · resets in 2d 2h", level: "error" });
  });

  test("a window past its reset no longer warns: it was used up then, not now", () => {
    const limits = anthropicLimits(account, { five_hour: { utilization: 99, resets_at: at(-1) } });
    expect(limitWarning([{ provider: "anthropic", fetchedAt: now, limits }], now)).toBeUndefined();
  });

  test("Codex windows: reset_at in seconds, or reset_after_seconds from now; labels by window length", () => {
    const limits = codexLimits({ ...account, provider: "openai-codex" }, { rate_limit: { primary_window: { used_percent: 50, limit_window_seconds: 18000, reset_after_seconds: 60 }, secondary_window: { used_percent: 100, limit_window_seconds: 604800, reset_at: now / 1000 + 7200 } } }, now);
    expect(limits.map((limit) => [limit.label, limit.window?.resetsAt, limit.status])).toEqual([
      ["5-hour limit", now + 60_000, "ok"],
      ["weekly limit", now + 7_200_000, "exhausted"],
    ]);
  });
});
