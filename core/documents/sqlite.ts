import { Database } from "bun:sqlite";
import { markdownTable } from "./sheets.ts";
import { ArchiveError } from "../archives/archive-error.ts";
import { refusedStatement } from "./sqlite-statement.ts";

export const SQLITE_DEFAULT_ROWS = 20;
export const SQLITE_MAX_ROWS = 500;
const MAX_TABLES = 500;
/** A cell longer than this is cut in the table, saying so. */
const MAX_CELL_CHARS = 200;
/** How long a read may run; its child process is killed then (sqlite-process.ts). */
export const SQLITE_QUERY_SECONDS = 10;

/** `db.sqlite:table` and `?q=…` / `?limit=…&offset=…`. */
export interface SqliteSelector {
  table?: string;
  params: URLSearchParams;
}

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

function cellText(value: unknown): string {
  if (value === null || value === undefined) return "NULL";
  if (value instanceof Uint8Array) return `<blob ${value.length} bytes>`;
  const text = String(value);
  return text.length > MAX_CELL_CHARS ? `${text.slice(0, MAX_CELL_CHARS)}… (${text.length} chars)` : text;
}

function table(columns: string[], rows: Record<string, unknown>[]): string {
  return markdownTable([columns, ...rows.map((row) => columns.map((column) => cellText(row[column])))]);
}

/**
 * Reads a database as the original omp's read does: the tables with their row counts; a table's
 * schema and rows, paged (`?limit=&offset=`); or a query (`?q=SELECT …`, at most SQLITE_MAX_ROWS
 * rows). The file is opened read-only with query_only, and a query that could reach beyond it is
 * refused (sqlite-statement.ts). Runs in a child process with a time limit (sqlite-process.ts).
 */
export function readSqlite(path: string, name: string, selector: SqliteSelector): string {
  let db: Database;
  try {
    db = new Database(path, { readonly: true });
    db.run("PRAGMA busy_timeout = 3000");
    db.run("PRAGMA query_only = ON");
  } catch (error) {
    throw new ArchiveError("corrupt", `${name} cannot be opened as a SQLite database (${(error as Error).message}).`, { cause: error });
  }
  try {
    const query = selector.params.get("q");
    if (query !== null) {
      if (selector.table || [...selector.params.keys()].some((key) => key !== "q")) throw new ArchiveError("query", `${name}?q= takes a query alone: no :table and no other parameters.`);
      if (!query.trim()) throw new ArchiveError("query", `${name}?q= is empty; give a query such as ?q=SELECT * FROM t LIMIT 10.`);
      return runQuery(db, query, name);
    }
    if (!selector.table) return listTables(db, name);
    return tableRows(db, selector.table, selector.params, name);
  } catch (error) {
    if (error instanceof ArchiveError) throw error;
    throw new ArchiveError("query", `${name}: ${(error as Error).message}`, { cause: error });
  } finally {
    db.close();
  }
}

function listTables(db: Database, name: string): string {
  const tables = db.query<{ name: string; type: string }, []>("SELECT name, type FROM sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite_%' ORDER BY name").all();
  if (tables.length === 0) return `${name}: a SQLite database with no tables.`;
  const rows = tables.slice(0, MAX_TABLES).map((entry) => {
    const count = db.query<{ n: number }, []>(`SELECT count(*) AS n FROM ${quote(entry.name)}`).get()?.n ?? 0;
    return { name: entry.name, type: entry.type, rows: count };
  });
  let text = `${name}: SQLite database, ${tables.length} table(s)\n\n${table(["name", "type", "rows"], rows)}`;
  if (tables.length > MAX_TABLES) text += `\n\n[Showing ${MAX_TABLES} of ${tables.length} tables; query sqlite_master with ?q= for the rest.]`;
  return `${text}\n\nRead rows with ${name}:<table> (?limit=&offset= to page), or run a read-only query with ${name}?q=SELECT …`;
}

function tableRows(db: Database, tableName: string, params: URLSearchParams, name: string): string {
  for (const key of params.keys()) {
    if (key !== "limit" && key !== "offset") throw new ArchiveError("query", `${name}:${tableName} takes ?limit= and ?offset=, not ?${key}=; use ?q=SELECT … for anything else.`);
  }
  const schema = db.query<{ sql: string | null }, [string]>("SELECT sql FROM sqlite_master WHERE name = ? AND type IN ('table', 'view')").get(tableName);
  if (!schema) {
    const names = db.query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite_%' ORDER BY name LIMIT 50").all().map((row) => row.name);
    throw new ArchiveError("not-found", `${name} has no table ${JSON.stringify(tableName)}. Tables: ${names.join(", ") || "(none)"}.`);
  }
  const limit = Math.min(SQLITE_MAX_ROWS, positive(params.get("limit"), SQLITE_DEFAULT_ROWS, "limit", name));
  const offset = positive(params.get("offset"), 0, "offset", name);
  const total = db.query<{ n: number }, []>(`SELECT count(*) AS n FROM ${quote(tableName)}`).get()?.n ?? 0;
  const statement = db.query(`SELECT * FROM ${quote(tableName)} LIMIT ? OFFSET ?`);
  const rows = statement.all(limit, offset) as Record<string, unknown>[];
  const columns = statement.columnNames;
  let text = `${schema.sql ?? ""}\n\n${name}:${tableName}, rows ${rows.length === 0 ? 0 : offset + 1}-${offset + rows.length} of ${total}\n\n${table(columns, rows)}`;
  if (offset + rows.length < total) text += `\n\n[More rows: read ${name}:${tableName}?offset=${offset + rows.length}&limit=${limit}]`;
  return text;
}

function positive(value: string | null, fallback: number, key: string, name: string): number {
  if (value === null) return fallback;
  const number = Number(value);
  if (!Number.isInteger(number) || number < 0) throw new ArchiveError("query", `${name}: ?${key}=${value} must be a whole number.`);
  return number;
}

function runQuery(db: Database, query: string, name: string): string {
  const refused = refusedStatement(query);
  if (refused) throw new ArchiveError("query", `${name}?q= refused: ${refused}. The database is opened read-only and only read.`);
  const statement = db.prepare(query);
  const rows: Record<string, unknown>[] = [];
  let more = false;
  for (const row of statement.iterate() as IterableIterator<Record<string, unknown>>) {
    if (rows.length >= SQLITE_MAX_ROWS) {
      more = true;
      break;
    }
    rows.push(row);
  }
  const columns = statement.columnNames;
  let text = rows.length === 0 ? "(no rows)" : table(columns, rows);
  if (more) text += `\n\n[Stopped at ${SQLITE_MAX_ROWS} rows; add LIMIT/OFFSET to the query to see others.]`;
  return text;
}
