import { displayPath } from "../paths.ts";
import type { Source } from "./sources.ts";

/**
 * Everything the extension loaders found, loaded or not, for `omp extensions` and `/extensions`.
 * Generic on purpose: each kind (skill, command, and the kinds other loaders add: agent, hook,
 * extension) records its items here the same way, with the file each came from and, for those not
 * in use, why.
 */
export type EntryStatus = "loaded" | "shadowed" | "skipped";

export interface CatalogEntry {
  kind: string;
  name: string;
  status: EntryStatus;
  /** The file it came from. */
  path: string;
  source: Source;
  description?: string;
  /** Why it was skipped or shadowed. */
  reason?: string;
  /** What was wrong with a file that still loaded (reported like a skip). */
  warning?: string;
  /** How a sloppy file was read ("name \"My Skill\" used as my-skill"): listed, not reported. */
  note?: string;
}

/**
 * Collects entries and reports each problem once (a skipped file, or one that loaded with a
 * warning), through the reporter the mode sets; problems found before it is set wait for it.
 */
export class Catalog {
  readonly entries: CatalogEntry[] = [];
  private report: ((message: string) => void) | undefined;
  private readonly pending: string[] = [];

  add(entry: CatalogEntry): void {
    this.entries.push(entry);
    const where = displayPath(entry.path);
    if (entry.status === "skipped" && entry.reason) this.problem(`${where}: ${entry.reason} (skipped)`);
    if (entry.warning) this.problem(`${where}: ${entry.warning}`);
  }

  problem(message: string): void {
    if (this.report) this.report(message);
    else this.pending.push(message);
  }

  /** Where problems go from now on (stderr, a notice); the ones found so far go there at once. */
  setReporter(report: (message: string) => void): void {
    this.report = report;
    for (const message of this.pending.splice(0)) report(message);
  }
}

/** First wins by name: the later ones are recorded as shadowed by it. */
export function claimName<T extends { name: string; path: string }>(taken: Map<string, T>, item: T): T | undefined {
  const owner = taken.get(item.name);
  if (!owner) taken.set(item.name, item);
  return owner;
}
