import { type Dirent, statSync } from "node:fs";
import { join } from "node:path";

/** Whether a directory entry is a directory, following a symlink to one (linked-in skills, linked folders). */
export function isDirEntry(dir: string, entry: Dirent): boolean {
  if (entry.isDirectory()) return true;
  if (!entry.isSymbolicLink()) return false;
  try {
    return statSync(join(dir, entry.name)).isDirectory();
  } catch {
    return false;
  }
}

/** Whether `path` is a file (a symlink to one counts); false when it is missing. */
export function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
