import { EXIT_USAGE } from "../../core/errors/exit-codes.ts";
import { resolve } from "node:path";
import { loadDotenv } from "../../core/config/dotenv.ts";
import { OmpError } from "../../core/errors/omp-error.ts";
import { formatCount, formatDollars, usageLines } from "../../core/usage/format.ts";
import { usageOverview } from "../../core/usage/report.ts";
import { type Totals, sessionStats } from "../../core/usage/stats.ts";
import { writeStatsPage } from "../../core/usage/stats-page.ts";
import { openBrowser } from "../shared/open-browser.ts";
import { pathToFileURL } from "node:url";
import { writeStdout } from "../shared/write.ts";

/**
 * `omp usage [--json]`: each subscription account's limits and resets as its provider reports
 * them (or the auth broker, in broker mode), limits met, and omp's own token and cost records for
 * today and the last seven days.
 */
export async function runUsage(flags: { json?: boolean }): Promise<number> {
  loadDotenv({ cwd: resolve(process.cwd()), env: process.env });
  const overview = await usageOverview(process.env);
  await writeStdout(flags.json ? `${JSON.stringify(overview, null, 2)}\n` : `${usageLines(overview).join("\n")}\n`);
  return 0;
}

const totalsText = (t: Totals) => `in ${formatCount(t.input).padStart(6)}  out ${formatCount(t.output).padStart(6)}  ${formatDollars(t.cost).padStart(8)}  ${String(t.requests).padStart(5)} req  ${String(t.toolCalls).padStart(5)} tool calls`;

/** `omp stats [--days n] [--json]`: sessions, tokens, cost and tool calls over time, from the session files. */
export async function runStats(flags: { json?: boolean; days?: string; html?: string | boolean }): Promise<number> {
  const days = flags.days === undefined ? 30 : Number(flags.days);
  if (!Number.isInteger(days) || days < 1) throw new OmpError(`--days: got ${JSON.stringify(flags.days)}, expected a whole number of days (1 or more)`, { exitCode: EXIT_USAGE });
  const stats = sessionStats({ env: process.env, days });
  if (flags.html !== undefined) {
    const path = writeStatsPage(stats, process.cwd(), typeof flags.html === "string" ? flags.html : undefined);
    await writeStdout(`${path}\n`);
    openBrowser(pathToFileURL(path));
    return 0;
  }
  if (flags.json) {
    await writeStdout(`${JSON.stringify(stats, null, 2)}\n`);
    return 0;
  }
  const lines = [
    `Since ${stats.since}: ${stats.sessions} sessions (+${stats.subagentSessions} subagent) in ${stats.projects} project${stats.projects === 1 ? "" : "s"}`,
    `Total   ${totalsText(stats.total)}`,
    "",
    "By day",
    ...Object.entries(stats.byDay)
      .sort(([a], [b]) => b.localeCompare(a))
      .map(([day, t]) => `  ${day}  ${String(t.sessions).padStart(4)} sessions  ${totalsText(t)}`),
    "",
    "By model",
    ...Object.entries(stats.byModel)
      .sort(([, a], [, b]) => b.cost - a.cost || b.output - a.output)
      .map(([model, t]) => `  ${model.padEnd(44)} ${totalsText(t)}`),
    "",
    "Tools",
    ...Object.entries(stats.tools)
      .sort(([, a], [, b]) => b - a)
      .map(([tool, count]) => `  ${tool.padEnd(16)} ${String(count).padStart(6)}`),
  ];
  if (stats.skipped > 0) lines.push("", `${stats.skipped} session file${stats.skipped === 1 ? "" : "s"} skipped (unreadable, or over 64 MB)`);
  await writeStdout(`${lines.join("\n")}\n`);
  return 0;
}
