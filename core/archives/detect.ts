import { closeSync, openSync, readSync } from "node:fs";

export const isZipPath = (path: string) => /\.zip$/i.test(path);
export const isArchivePath = (path: string) => /\.(zip|tar|tar\.gz|tgz)$/i.test(path);
export const isSqlitePath = (path: string) => /\.(sqlite|sqlite3|db|db3)$/i.test(path);

/** The 16-byte header every SQLite 3 database starts with. */
export function isSqliteFile(path: string): boolean {
  const fd = openSync(path, "r");
  try {
    const head = Buffer.alloc(16);
    readSync(fd, head, 0, 16, 0);
    return head.toString("latin1") === "SQLite format 3\0";
  } finally {
    closeSync(fd);
  }
}

