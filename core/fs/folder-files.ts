import { readdirSync } from "node:fs";
import { join, relative } from "node:path";

/** Up to `max` files of `dir`, `maxDepth` levels deep, relative to it, in name order; dot-files left out. */
export function folderFiles(dir: string, max: number, maxDepth: number): string[] {
  const out: string[] = [];
  const walk = (folder: string, depth: number) => {
    let entries;
    try {
      entries = readdirSync(folder, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name));
    } catch {
      return;
    }
    for (const entry of entries) {
      if (out.length >= max || entry.name.startsWith(".")) continue;
      const path = join(folder, entry.name);
      if (entry.isDirectory()) {
        if (depth < maxDepth) walk(path, depth + 1);
      } else out.push(relative(dir, path));
    }
  };
  walk(dir, 1);
  return out;
}
