import type { Database } from "bun:sqlite";
import { OmpError, describeError } from "../errors/omp-error.ts";
import { openPrivateDatabase } from "../fs/private-database.ts";
import { displayPath } from "../paths.ts";
import { ftsQuery } from "./query.ts";

/** A memory is a fact, not a document: past this it is refused with a request to split or shorten it. */
export const MAX_CONTENT_CHARS = 4000;
export const MAX_CONTEXT_CHARS = 1000;
/** Memories a bank holds; past it retain is refused until some are forgotten (/memory), never dropped silently. */
export const MAX_BANK_MEMORIES = 2000;

export type MemoryErrorKind = "too-long" | "bank-full" | "not-found" | "empty" | "unreadable";

/** A refused memory operation: `kind` for code, the message for the model or the user. */
export class MemoryError extends OmpError {
  constructor(
    readonly kind: MemoryErrorKind,
    message: string,
  ) {
    super(message);
  }
}

export interface Memory {
  id: number;
  bank: string;
  content: string;
  context: string | null;
  source: string;
  created: number;
  updated: number;
}

export interface RecalledMemory extends Memory {
  /** Relevance in (0, 1], the best hit of a search 1. */
  score: number;
}

export interface NewMemory {
  content: string;
  context?: string;
  source: string;
  cwd: string;
}

/**
 * The memory banks in one SQLite file (private, like the agent's other stores), searched with an
 * FTS5 index kept in step by triggers. Every process of the user opens the same file; SQLite
 * serialises the writers.
 */
export class MemoryStore {
  private constructor(private readonly db: Database) {}

  /** Opens (creating) the store at `path`. */
  static open(path: string): MemoryStore {
    let db: Database | undefined;
    try {
      db = openPrivateDatabase(path, { strict: true });
      db.run("PRAGMA busy_timeout = 5000");
      db.run("PRAGMA journal_mode = WAL");
      db.run(`CREATE TABLE IF NOT EXISTS memories (id INTEGER PRIMARY KEY AUTOINCREMENT, bank TEXT NOT NULL, content TEXT NOT NULL,
        context TEXT, source TEXT NOT NULL, cwd TEXT NOT NULL, created INTEGER NOT NULL, updated INTEGER NOT NULL)`);
      db.run("CREATE INDEX IF NOT EXISTS memories_bank ON memories (bank, updated)");
      db.run("CREATE VIRTUAL TABLE IF NOT EXISTS memories_fts USING fts5 (content, context, content='memories', content_rowid='id', tokenize='porter unicode61')");
      db.run("CREATE TRIGGER IF NOT EXISTS memories_ai AFTER INSERT ON memories BEGIN INSERT INTO memories_fts (rowid, content, context) VALUES (new.id, new.content, new.context); END");
      db.run(
        "CREATE TRIGGER IF NOT EXISTS memories_ad AFTER DELETE ON memories BEGIN INSERT INTO memories_fts (memories_fts, rowid, content, context) VALUES ('delete', old.id, old.content, old.context); END",
      );
      db.run(
        "CREATE TRIGGER IF NOT EXISTS memories_au AFTER UPDATE OF content, context ON memories BEGIN INSERT INTO memories_fts (memories_fts, rowid, content, context) VALUES ('delete', old.id, old.content, old.context); INSERT INTO memories_fts (rowid, content, context) VALUES (new.id, new.content, new.context); END",
      );
      return new MemoryStore(db);
    } catch (error) {
      db?.close();
      throw new MemoryError("unreadable", `The memory store ${displayPath(path)} cannot be used (${describeError(error)}); move it aside and omp starts a new one.`);
    }
  }

  /** Opens the store at `path` for the length of `use`. */
  static using<T>(path: string, use: (store: MemoryStore) => T): T {
    const store = MemoryStore.open(path);
    try {
      return use(store);
    } finally {
      store.close();
    }
  }

  /**
   * Stores memories in `bank`, all or none: each is checked against the limits first. A memory the
   * bank already holds word for word is refreshed instead of stored twice. Returns their ids.
   */
  add(bank: string, memories: readonly NewMemory[]): number[] {
    memories.forEach((memory, index) => checkMemory(memory.content, memory.context, memories.length > 1 ? `item ${index + 1}: ` : ""));
    return this.db.transaction(() => {
      const now = Date.now();
      const ids: number[] = [];
      for (const memory of memories) {
        const content = memory.content.trim();
        const context = memory.context?.trim() || null;
        const same = this.db.query<{ id: number }, [string, string]>("SELECT id FROM memories WHERE bank = ? AND content = ?").get(bank, content);
        if (same) {
          this.db.query("UPDATE memories SET updated = ?, context = COALESCE(?, context) WHERE id = ?").run(now, context, same.id);
          ids.push(same.id);
          continue;
        }
        const count = this.count(bank);
        if (count >= MAX_BANK_MEMORIES) {
          throw new MemoryError("bank-full", `The memory bank is full (${MAX_BANK_MEMORIES} memories); nothing was stored. Ask the user to forget old memories with /memory.`);
        }
        const row = this.db
          .query<{ id: number }, [string, string, string | null, string, string, number, number]>(
            "INSERT INTO memories (bank, content, context, source, cwd, created, updated) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id",
          )
          .get(bank, content, context, memory.source, memory.cwd, now, now);
        ids.push(row!.id);
      }
      return ids;
    })();
  }

  /**
   * The memories of `banks` that share words with `query`, most relevant first (bm25 over content
   * and context, newer first among equals), at most `limit`. The query is free text: no character
   * of it is FTS syntax.
   */
  search(banks: readonly string[], query: string, limit: number): RecalledMemory[] {
    const match = ftsQuery(query);
    if (match === undefined || banks.length === 0) return [];
    const rows = this.db
      .query<Memory & { rank: number }, (string | number)[]>(
        `SELECT m.id, m.bank, m.content, m.context, m.source, m.created, m.updated, bm25(memories_fts, 1.0, 0.5) AS rank
         FROM memories_fts JOIN memories m ON m.id = memories_fts.rowid
         WHERE memories_fts MATCH ? AND m.bank IN (${banks.map(() => "?").join(", ")})
         ORDER BY rank, m.updated DESC, m.id DESC LIMIT ?`,
      )
      .all(match, ...banks, limit);
    // bm25 is negative, lower better; relative to the best hit it reads as a share of it.
    const best = rows[0]?.rank ?? 0;
    return rows.map(({ rank, ...memory }) => ({ ...memory, score: best < 0 ? rank / best : 1 }));
  }

  /** The newest memories of `banks` first. */
  list(banks: readonly string[], limit: number): Memory[] {
    if (banks.length === 0) return [];
    return this.db
      .query<Memory, (string | number)[]>(
        `SELECT id, bank, content, context, source, created, updated FROM memories WHERE bank IN (${banks.map(() => "?").join(", ")}) ORDER BY updated DESC, id DESC LIMIT ?`,
      )
      .all(...banks, limit);
  }

  count(bank: string): number {
    return this.db.query<{ n: number }, [string]>("SELECT COUNT(*) AS n FROM memories WHERE bank = ?").get(bank)!.n;
  }

  /** Replaces a memory's text, in one of `banks`. */
  update(banks: readonly string[], id: number, content: string): void {
    checkMemory(content, undefined, "");
    const changed = this.db
      .query(`UPDATE memories SET content = ?, updated = ? WHERE id = ? AND bank IN (${banks.map(() => "?").join(", ")})`)
      .run(content.trim(), Date.now(), id, ...banks).changes;
    if (changed === 0) throw notFound(id);
  }

  /** Deletes a memory of one of `banks`. */
  forget(banks: readonly string[], id: number): void {
    const changed = this.db.query(`DELETE FROM memories WHERE id = ? AND bank IN (${banks.map(() => "?").join(", ")})`).run(id, ...banks).changes;
    if (changed === 0) throw notFound(id);
  }

  /** Deletes every memory of `banks`; returns how many there were. */
  clear(banks: readonly string[]): number {
    if (banks.length === 0) return 0;
    return this.db.query(`DELETE FROM memories WHERE bank IN (${banks.map(() => "?").join(", ")})`).run(...banks).changes;
  }

  /** What is wrong with the file and its search index; empty when nothing is. */
  diagnose(): string[] {
    const problems = this.db
      .query<{ quick_check: string }, []>("PRAGMA quick_check")
      .all()
      .map((row) => row.quick_check)
      .filter((line) => line !== "ok");
    try {
      this.db.run("INSERT INTO memories_fts (memories_fts, rank) VALUES ('integrity-check', 1)");
    } catch (error) {
      problems.push(`the search index does not match the memories (${describeError(error)}); /memory rebuild rebuilds it`);
    }
    return problems;
  }

  /** Builds the search index again from the memories, and merges its segments. */
  rebuild(): void {
    this.db.run("INSERT INTO memories_fts (memories_fts) VALUES ('rebuild')");
    this.db.run("INSERT INTO memories_fts (memories_fts) VALUES ('optimize')");
  }

  close(): void {
    this.db.close();
  }
}

function notFound(id: number): MemoryError {
  return new MemoryError("not-found", `There is no memory ${id} in this project's banks.`);
}

function checkMemory(content: string, context: string | undefined, where: string): void {
  if (content.trim() === "") throw new MemoryError("empty", `${where}content is empty; nothing was stored.`);
  if (content.length > MAX_CONTENT_CHARS) {
    throw new MemoryError("too-long", `${where}content is ${content.length} characters, over the ${MAX_CONTENT_CHARS} a memory may have; store the durable fact itself, or split it into several items. Nothing was stored.`);
  }
  if (context !== undefined && context.length > MAX_CONTEXT_CHARS) {
    throw new MemoryError("too-long", `${where}context is ${context.length} characters, over the ${MAX_CONTEXT_CHARS} allowed; shorten it. Nothing was stored.`);
  }
}
