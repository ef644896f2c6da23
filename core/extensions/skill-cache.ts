import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { writeFileAtomic } from "../fs/atomic-write.ts";
import { agentDir, ensurePrivateDir } from "../paths.ts";
import { VERSION } from "../version.ts";

/** What a SKILL.md's head says, as its loader read it; independent of the source it is found in. */
export type SkillHead =
  | { name: string; description: string; allowedTools: string[]; userOnly: boolean; warning?: string; note?: string }
  | { skip: string };

interface Entry {
  mtimeMs: number;
  size: number;
  head: SkillHead;
}

/** Skills of the user's folders and of the projects in use; the oldest go first. */
const MAX_ENTRIES = 2000;

/**
 * SKILL.md heads as last read, keyed by path and checked against the file's size and mtime: a
 * session with hundreds of skills stats them instead of reading and parsing each one before its
 * first request. Stamped with omp's version (the reader may change). Like every cache, it must
 * never break a run: a cache that cannot be read is empty, one that cannot be written is ignored.
 */
export class SkillCache {
  private changed = false;

  private constructor(
    private readonly path: string,
    private readonly entries: Record<string, Entry>,
  ) {}

  static open(env: NodeJS.ProcessEnv): SkillCache {
    const path = join(agentDir(env), "cache", "skills.json");
    let entries: Record<string, Entry> = {};
    try {
      const data = JSON.parse(readFileSync(path, "utf8")) as { version?: unknown; entries?: unknown };
      if (data.version === VERSION && data.entries && typeof data.entries === "object") entries = data.entries as Record<string, Entry>;
    } catch {
      // Missing or damaged: every skill is read this time.
    }
    return new SkillCache(path, entries);
  }

  /** The head of `file` when the cached one is for the file as it is now (`stat`). */
  get(file: string, stat: { mtimeMs: number; size: number }): SkillHead | undefined {
    const entry = this.entries[file];
    return entry && entry.mtimeMs === stat.mtimeMs && entry.size === stat.size ? entry.head : undefined;
  }

  set(file: string, stat: { mtimeMs: number; size: number }, head: SkillHead): void {
    delete this.entries[file];
    this.entries[file] = { mtimeMs: stat.mtimeMs, size: stat.size, head };
    this.changed = true;
  }

  /** Written only when something changed; private, since project paths say where the user works. */
  save(): void {
    if (!this.changed) return;
    this.changed = false;
    const keys = Object.keys(this.entries);
    for (const old of keys.slice(0, Math.max(0, keys.length - MAX_ENTRIES))) delete this.entries[old];
    try {
      ensurePrivateDir(dirname(this.path));
      writeFileAtomic(this.path, JSON.stringify({ version: VERSION, entries: this.entries }), { mode: 0o600, forceMode: true, durable: false });
    } catch {
      // Not written: the next run reads the files again.
    }
  }
}
