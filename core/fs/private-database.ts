import { Database } from "bun:sqlite";
import { chmodSync, closeSync, existsSync, openSync } from "node:fs";
import { dirname } from "node:path";
import { ensurePrivateDir } from "../paths.ts";

/**
 * Opens (creating) a SQLite database only its owner can read: 0600 in a 0700 dir, for stores that
 * may hold what a user typed or the model kept (history, memories).
 */
export function openPrivateDatabase(path: string, options: { strict?: boolean } = {}): Database {
  ensurePrivateDir(dirname(path));
  // Created 0600 before SQLite opens it: SQLite gives its journal the database file's mode.
  if (!existsSync(path)) closeSync(openSync(path, "a", 0o600));
  chmodSync(path, 0o600);
  return new Database(path, { create: true, ...options });
}
