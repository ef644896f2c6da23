import type { UsageReport } from "../broker/wire.ts";
import type { ModelTotals, UsageOverview } from "./report.ts";

type Limit = UsageReport["limits"][number];

/** The two shares of a limit the status line warns at: first a warning, then an alarm. */
export const WARN_AT = 0.8;
export const ALARM_AT = 0.95;

export function formatCount(n: number): string {
  if (n < 1000) return String(Math.round(n));
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

export const formatDollars = (dollars: number) => (dollars < 1 ? `$${dollars.toFixed(3)}` : `$${dollars.toFixed(2)}`);

/** "2h 13m", "5d 3h", "12m": how long until `at`. */
export function formatIn(at: number, now = Date.now()): string {
  const minutes = Math.max(0, Math.round((at - now) / 60_000));
  if (minutes < 60) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours}h ${minutes % 60}m`;
  return `${Math.floor(hours / 24)}d ${hours % 24}h`;
}

/** A limit's used share, 0..1, when it is known. */
export function usedFraction(limit: Limit): number | undefined {
  return limit.amount.usedFraction ?? (limit.status === "exhausted" ? 1 : undefined);
}

function limitLine(limit: Limit, now: number): string {
  const used = usedFraction(limit);
  const share = used === undefined ? "?" : `${Math.round(used * 100)}%`;
  const count = limit.amount.unit === "requests" && limit.amount.limit !== undefined ? ` (${formatCount(limit.amount.used ?? 0)}/${formatCount(limit.amount.limit)})` : "";
  const resets = limit.window?.resetsAt ? `  resets in ${formatIn(limit.window.resetsAt, now)} (${new Date(limit.window.resetsAt).toISOString().slice(0, 16).replace("T", " ")} UTC)` : "";
  const mark = used === undefined ? "" : used >= 1 ? "  EXHAUSTED" : used >= ALARM_AT ? "  near the limit" : used >= WARN_AT ? "  warning" : "";
  return `    ${limit.label.padEnd(28)} ${share.padStart(4)}${count}${resets}${mark}`;
}

function reportLines(report: UsageReport, now: number): string[] {
  const account = typeof report.metadata?.account === "string" ? report.metadata.account : report.limits[0]?.scope.account;
  return [`  ${report.provider}${account ? `  ${account}` : ""}`, ...report.limits.map((limit) => limitLine(limit, now)), ...(report.notes ?? []).map((note) => `    ${note}`)];
}

function totalsLines(rows: ModelTotals[]): string[] {
  if (rows.length === 0) return ["  nothing recorded"];
  return rows.map(
    (row) =>
      `  ${`${row.provider}/${row.model}`.padEnd(44)} ${String(row.requests).padStart(5)} req  in ${formatCount(row.input + row.cacheRead + row.cacheWrite).padStart(6)}  out ${formatCount(row.output).padStart(6)}  ${formatDollars(row.cost).padStart(8)}`,
  );
}

/** `omp usage` and `/usage` as lines of text. */
export function usageLines(overview: UsageOverview, now = Date.now()): string[] {
  const lines: string[] = [];
  lines.push(overview.credentials === "broker" ? "Subscriptions (through the auth broker)" : "Subscriptions");
  if (overview.accounts.length === 0) lines.push("  no subscription logins (omp auth login anthropic | openai-codex | github-copilot | google-gemini-cli)");
  for (const report of overview.accounts) lines.push(...reportLines(report, now));
  if (overview.known.length > 0) {
    lines.push("", overview.credentials === "broker" ? "Limits the auth broker knows were met" : "Limits met (seen by omp)");
    for (const report of overview.known) lines.push(...reportLines(report, now));
  }
  lines.push("", "Recorded by omp today", ...totalsLines(overview.recorded.today));
  lines.push("", "Last 7 days", ...totalsLines(overview.recorded.week));
  if (overview.notes.length > 0) lines.push("", ...overview.notes.map((note) => `note: ${note}`));
  return lines;
}

/**
 * The most used limit of the reports at or past {@link WARN_AT}, for the status line: "5-hour
 * limit 85%" with its level; undefined when every limit is below.
 */
export function limitWarning(reports: UsageReport[], now = Date.now()): { text: string; level: "warning" | "error" } | undefined {
  let worst: { limit: Limit; used: number } | undefined;
  for (const limit of reports.flatMap((report) => report.limits)) {
    const used = usedFraction(limit);
    if (used === undefined || used < WARN_AT) continue;
    if (limit.window?.resetsAt !== undefined && limit.window.resetsAt <= now) continue;
    if (!worst || used > worst.used) worst = { limit, used };
  }
  if (!worst) return undefined;
  const resets = worst.limit.window?.resetsAt ? ` · resets in ${formatIn(worst.limit.window.resetsAt, now)}` : "";
  return { text: `${worst.limit.label} ${Math.round(worst.used * 100)}%${resets}`, level: worst.used >= ALARM_AT ? "error" : "warning" };
}
