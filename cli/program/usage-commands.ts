import type { Command } from "commander";
import type { Run } from "../options/options.ts";

/** `omp usage`: what each subscription login may still use, and what omp spent (usage.ts). */
export function describeUsage(program: Command, run: Run): void {
  program
    .command("usage")
    .description("subscription limits and resets per account, and tokens and cost today and this week per model")
    .option("--json", "machine-readable output")
    .action(run(async (options: { json?: boolean }) => (await import("../commands/usage.ts")).runUsage(options)));
}

/** `omp stats`: the session files summed up over time (usage.ts). */
export function describeStats(program: Command, run: Run): void {
  program
    .command("stats")
    .description("sessions, tokens, cost and tool calls over time, from the session files")
    .option("--days <n>", "how far back (default 30)")
    .option("--json", "machine-readable output")
    .option("--html [file]", "write a self-contained page with charts (default ./omp-stats.html) and open it")
    .action(run(async (options: { json?: boolean; days?: string; html?: string | boolean }) => (await import("../commands/usage.ts")).runStats(options)));
}
