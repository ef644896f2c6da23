import { Database } from "bun:sqlite";
import { join } from "node:path";
import { agentDir, ensurePrivateDir } from "../paths.ts";

/** A fetched page as the model reads it, so paging through it (offset/limit) costs no new fetch. */
export interface CachedPage {
  url: string;
  finalUrl: string;
  contentType: string;
  text: string;
  fetchedAt: number;
}

/** Rows past this are dropped, oldest first: the cache serves paging and quick re-reads, not an archive. */
const MAX_ROWS = 500;
/** And so are the oldest pages once the texts add up to more than this (500 pages of 10 MB would be 5 GB). */
export const MAX_CACHE_BYTES = 64 * 1024 * 1024;

let opened: { path: string; db: Database } | undefined;

function database(env: NodeJS.ProcessEnv): Database {
  const dir = agentDir(env);
  const path = join(dir, "web-cache.db");
  if (opened?.path === path) return opened.db;
  ensurePrivateDir(dir);
  const db = new Database(path, { create: true });
  db.run("PRAGMA journal_mode = WAL");
  db.run("PRAGMA busy_timeout = 3000");
  db.run("CREATE TABLE IF NOT EXISTS pages (url TEXT PRIMARY KEY, final_url TEXT NOT NULL, content_type TEXT NOT NULL, text TEXT NOT NULL, fetched_at INTEGER NOT NULL)");
  opened = { path, db };
  return db;
}

/** The page fetched within `ttlSeconds`, if any. A broken cache is no cache: the page is fetched again. */
export function cachedPage(url: string, ttlSeconds: number, env: NodeJS.ProcessEnv = process.env): CachedPage | undefined {
  if (ttlSeconds <= 0) return undefined;
  try {
    const row = database(env)
      .query<{ url: string; final_url: string; content_type: string; text: string; fetched_at: number }, [string, number]>(
        "SELECT * FROM pages WHERE url = ? AND fetched_at >= ?",
      )
      .get(url, Date.now() - ttlSeconds * 1000);
    return row ? { url: row.url, finalUrl: row.final_url, contentType: row.content_type, text: row.text, fetchedAt: row.fetched_at } : undefined;
  } catch {
    return undefined;
  }
}

export function storePage(page: CachedPage, ttlSeconds: number, env: NodeJS.ProcessEnv = process.env): void {
  if (ttlSeconds <= 0) return;
  try {
    const db = database(env);
    db.query("INSERT OR REPLACE INTO pages (url, final_url, content_type, text, fetched_at) VALUES (?, ?, ?, ?, ?)").run(
      page.url,
      page.finalUrl,
      page.contentType,
      page.text,
      page.fetchedAt,
    );
    db.query("DELETE FROM pages WHERE fetched_at < ? OR url NOT IN (SELECT url FROM pages ORDER BY fetched_at DESC LIMIT ?)").run(Date.now() - ttlSeconds * 1000, MAX_ROWS);
    db.query(
      "DELETE FROM pages WHERE url IN (SELECT url FROM (SELECT url, SUM(length(CAST(text AS BLOB))) OVER (ORDER BY fetched_at DESC, url) AS total FROM pages) WHERE total > ?)",
    ).run(MAX_CACHE_BYTES);
  } catch {
    // A read-only or full disk only costs the cache.
  }
}
