import { appendFileSync, readFileSync, renameSync, rmSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { agentDir, ensurePrivateDir } from "../paths.ts";
import type { RecordedUsage, UsageLog } from "./usage-db.ts";

/**
 * The agent's replies are appended here, one JSON line each, and folded into usage.db by whoever
 * opens it next (`omp usage`, `omp stats`): opening SQLite on every run cost a print run ~2 MB of
 * its peak memory and the load of bun:sqlite. A run folds the journal itself once it passes
 * FOLD_AT, so the file stays small when nothing reads the store.
 */
export const usageJournalPath = (env: NodeJS.ProcessEnv = process.env) => join(agentDir(env), "usage.jsonl");

const FOLD_AT = 256 * 1024;

export interface JournalLine {
  day: string;
  client: string;
  provider: string;
  model: string;
  failed: boolean;
  usage: RecordedUsage;
}

/** Appends one reply; true when the journal has grown past FOLD_AT and should be folded. */
export function appendUsage(path: string, line: JournalLine): boolean {
  const { input, output, cacheRead, cacheWrite, cost } = line.usage;
  const text = `${JSON.stringify({ ...line, usage: { input, output, cacheRead, cacheWrite, cost: { total: cost.total } } })}\n`;
  try {
    appendFileSync(path, text, { mode: 0o600 });
  } catch (error) {
    // The folder is made when missing, not looked for before every reply of a run.
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    ensurePrivateDir(dirname(path));
    appendFileSync(path, text, { mode: 0o600 });
  }
  return statSync(path).size > FOLD_AT;
}

const count = (value: unknown) => (typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : 0);

/**
 * Moves the journal's lines into `log` and removes it. The journal is renamed first, so a run
 * appending meanwhile starts a new one instead of writing into lines already counted; a line
 * that does not parse (a torn write) is skipped.
 */
export function foldUsageJournal(path: string, log: UsageLog): void {
  const taken = `${path}.${process.pid}.folding`;
  try {
    renameSync(path, taken);
  } catch {
    return;
  }
  try {
    for (const text of readFileSync(taken, "utf8").split("\n")) {
      if (!text) continue;
      let line: Partial<JournalLine>;
      try {
        line = JSON.parse(text);
      } catch {
        continue;
      }
      if (typeof line.day !== "string" || typeof line.client !== "string" || typeof line.provider !== "string" || typeof line.model !== "string" || typeof line.usage !== "object" || line.usage === null) continue;
      const usage = line.usage;
      log.record(line.client, line.provider, line.model, { input: count(usage.input), output: count(usage.output), cacheRead: count(usage.cacheRead), cacheWrite: count(usage.cacheWrite), cost: { total: count(usage.cost?.total) } }, line.failed === true, line.day);
    }
  } finally {
    rmSync(taken, { force: true });
  }
}
