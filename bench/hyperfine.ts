import { readFileSync } from "node:fs";
import { join } from "node:path";
import { median } from "./stats.ts";

export interface RoundsTiming {
  command: string;
  /** Seconds: the median of the rounds' medians. */
  median: number;
  /** Seconds: the mean of the rounds' means. */
  mean: number;
  /**
   * Seconds of CPU (user + system, all threads), the median of the rounds' means: what the command
   * itself costs, which the load of a shared machine changes far less than its wall time.
   */
  cpu: number;
}

export interface RoundsOptions {
  /** Where hyperfine's JSON goes, one file per round. */
  workDir: string;
  runs: number;
  rounds: number;
  warmup?: number;
  /** More hyperfine flags (`-i`, `--output pipe`, `--prepare ...`). */
  flags?: string[];
  env?: Record<string, string>;
}

/**
 * hyperfine in several short rounds, each running every command, summarised by the median of the
 * rounds' medians: the load of a shared machine drifts, and one long round would time each
 * command under a different load (a 300-run round put `omp --version` at 1.12× the empty program
 * where interleaved rounds measure 0.97–1.03×).
 */
export async function hyperfineRounds(name: string, commands: string[], options: RoundsOptions): Promise<RoundsTiming[]> {
  const medians: number[][] = commands.map(() => []);
  const means: number[][] = commands.map(() => []);
  const cpus: number[][] = commands.map(() => []);
  for (let round = 0; round < options.rounds; round++) {
    const json = join(options.workDir, `${name}-${round}.json`);
    const args = ["hyperfine", "--style", "basic", "-N", "--warmup", String(options.warmup ?? 1), "--runs", String(options.runs), "--export-json", json, ...(options.flags ?? []), ...commands];
    const child = Bun.spawn(args, { env: { ...process.env, ...options.env }, stdio: ["ignore", "ignore", "inherit"] });
    if ((await child.exited) !== 0) throw new Error(`hyperfine ${name} failed`);
    const results: { median: number; mean: number; user: number; system: number }[] = JSON.parse(readFileSync(json, "utf8")).results;
    results.forEach((result, i) => {
      medians[i]!.push(result.median);
      means[i]!.push(result.mean);
      cpus[i]!.push(result.user + result.system);
    });
  }
  return commands.map((command, i) => ({ command, median: median(medians[i]!), mean: means[i]!.reduce((a, b) => a + b, 0) / means[i]!.length, cpu: median(cpus[i]!) }));
}
