import type { Database } from "bun:sqlite";
import { join } from "node:path";
import { openPrivateDatabase } from "../fs/private-database.ts";
import { agentDir } from "../paths.ts";

/** Prompts kept; older ones are dropped when a prompt is added. */
const MAX_ENTRIES = 10_000;

export const historyDbPath = (env: NodeJS.ProcessEnv = process.env) => join(agentDir(env), "history.db");

/**
 * The prompts typed in interactive mode, newest last, shared by every omp on the machine (each
 * process opens the same file; SQLite serialises the writers). Prompts can hold secrets pasted by
 * mistake, so the file is private (0600 in a 0700 dir).
 */
export class HistoryStore {
  private constructor(private readonly db: Database) {}

  static open(path: string): HistoryStore {
    const db = openPrivateDatabase(path);
    db.exec("PRAGMA busy_timeout = 2000");
    db.exec("CREATE TABLE IF NOT EXISTS history (id INTEGER PRIMARY KEY AUTOINCREMENT, text TEXT NOT NULL, cwd TEXT NOT NULL, created INTEGER NOT NULL)");
    return new HistoryStore(db);
  }

  /** Records a prompt, unless it repeats the one before it. */
  add(text: string, cwd: string): void {
    if (text.trim() === "") return;
    const last = this.db.query<{ text: string }, []>("SELECT text FROM history ORDER BY id DESC LIMIT 1").get();
    if (last?.text === text) return;
    this.db.query("INSERT INTO history (text, cwd, created) VALUES (?, ?, ?)").run(text, cwd, Date.now());
    this.db.query("DELETE FROM history WHERE id <= (SELECT MAX(id) FROM history) - ?").run(MAX_ENTRIES);
  }

  /** The most recent distinct prompts, newest first. */
  recent(limit: number): string[] {
    return this.db
      .query<{ text: string }, [number]>("SELECT text FROM history GROUP BY text ORDER BY MAX(id) DESC LIMIT ?")
      .all(limit)
      .map((row) => row.text);
  }

  /** Distinct prompts containing `query` (case-insensitive for ASCII), newest first. */
  search(query: string, limit: number): string[] {
    const pattern = `%${query.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    return this.db
      .query<{ text: string }, [string, number]>("SELECT text FROM history WHERE text LIKE ? ESCAPE '\\' GROUP BY text ORDER BY MAX(id) DESC LIMIT ?")
      .all(pattern, limit)
      .map((row) => row.text);
  }

  close(): void {
    this.db.close();
  }
}
