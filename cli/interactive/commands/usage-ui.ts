import type { ModelSelection, Runtime } from "../../../core/agent/runtime.ts";
import type { UsageReport } from "../../../core/broker/wire.ts";
import { limitWarning, usageLines } from "../../../core/usage/format.ts";
import { isUsageProvider } from "../../../core/usage/limits.ts";
import { textBlock } from "../render/blocks.ts";
import type { SlashCommand } from "./commands.ts";

/** `/usage`: what `omp usage` prints, in the transcript. */
export const USAGE_COMMAND: SlashCommand = {
  name: "usage",
  description: "subscription limits and resets; tokens and cost today and this week",
  async run(host) {
    host.setActivity("Asking the providers for usage");
    try {
      const { usageOverview } = await import("../../../core/usage/report.ts");
      const lines = usageLines(await usageOverview(host.runtime.options.env as NodeJS.ProcessEnv));
      host.add(textBlock(host.view, (theme) => lines.map((line, i) => [{ text: line, style: i === 0 || /^[A-Z]/.test(line) ? theme.fg("accent", "bold") : theme.fg("muted") }])));
    } finally {
      host.setActivity(undefined);
    }
  },
};

/** `/stats`: `omp stats --html` for the last 30 days, written to ./omp-stats.html and opened in the browser. */
export const STATS_COMMAND: SlashCommand = {
  name: "stats",
  description: "a page of charts: tokens, cost, requests, tool calls and errors per day, model and project",
  args: "[file.html]",
  async run(host, args) {
    const { sessionStats } = await import("../../../core/usage/stats.ts");
    const { writeStatsPage } = await import("../../../core/usage/stats-page.ts");
    const { openBrowser } = await import("../../shared/open-browser.ts");
    const { pathToFileURL } = await import("node:url");
    const stats = sessionStats({ env: host.runtime.options.env as NodeJS.ProcessEnv, days: 30 });
    const path = writeStatsPage(stats, host.cwd, args || undefined);
    openBrowser(pathToFileURL(path));
    host.notice("success", `Wrote the stats of the last 30 days (${stats.total.requests} requests, ${stats.sessions + stats.subagentSessions} sessions) to ${path}`);
  },
};

/** How often the status line asks again how much of the account's limits is used. */
const REFRESH_MS = 120_000;
/** The first look waits until start-up is over: loading the usage code and the request are not free. */
const FIRST_LOOK_MS = 1000;

const warnings = new WeakMap<Runtime, { text: string; level: "warning" | "error" }>();

/** The status line's part for a subscription limit at 80 % or more (95 %: in the error colour). */
export function limitStatusText(runtime: Runtime): { text: string; level: "warning" | "error" } | undefined {
  return warnings.get(runtime);
}

/**
 * Keeps {@link limitStatusText} current for the account the session's model uses: its provider's
 * usage endpoint, asked shortly after start and every two minutes, and the limits responses carry
 * (Codex's headers), whichever is newer. Models on API keys have no limits to ask about.
 */
export function watchUsageLimits(runtime: Runtime, selection: () => ModelSelection, redraw: () => void): void {
  let polled: UsageReport | undefined;
  const update = () => {
    const id = selection().credentialId;
    const observed = id === undefined ? undefined : runtime.observedLimits.get(id);
    const current = polled?.metadata?.credentialId === id ? polled : undefined;
    const newest = observed && (!current || observed.fetchedAt >= current.fetchedAt) ? observed : current;
    const warning = newest ? limitWarning([newest]) : undefined;
    const before = warnings.get(runtime)?.text;
    if (warning) warnings.set(runtime, warning);
    else warnings.delete(runtime);
    if (warning?.text !== before) redraw();
  };
  const look = async () => {
    const current = selection();
    const provider = current.model.provider;
    polled = undefined;
    if (current.credentialId !== undefined && isUsageProvider(provider)) {
      const { usageOverview } = await import("../../../core/usage/report.ts");
      const overview = await usageOverview(runtime.options.env as NodeJS.ProcessEnv, { only: provider, recorded: false });
      polled = overview.accounts.find((report) => report.metadata?.credentialId === current.credentialId);
    }
    update();
  };
  const safely = () => void look().catch(() => undefined);
  runtime.observedLimits.subscribe(update);
  setTimeout(safely, FIRST_LOOK_MS).unref();
  setInterval(safely, REFRESH_MS).unref();
}
