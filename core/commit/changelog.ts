import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

/** Keep a Changelog's categories in the order they are written (the original omp's list). */
export const CHANGELOG_CATEGORIES = ["Breaking Changes", "Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"] as const;
export type ChangelogCategory = (typeof CHANGELOG_CATEGORIES)[number];
export type ChangelogEntries = Partial<Record<ChangelogCategory, string[]>>;

const NAME = "CHANGELOG.md";
const UNRELEASED = /^##\s+\[?unreleased\]?\s*$/im;

/**
 * The CHANGELOG.md nearest to each changed file, up to the repository root, with the files it
 * covers (changes to changelogs themselves cover nothing): where the project keeps one, the commit
 * adds its entries there.
 */
export function changelogsFor(root: string, paths: string[]): Map<string, string[]> {
  const found = new Map<string, string[]>();
  for (const path of paths) {
    if (path.toLowerCase().endsWith(NAME.toLowerCase())) continue;
    for (let dir = resolve(root, dirname(path)); ; dir = dirname(dir)) {
      const candidate = join(dir, NAME);
      if (existsSync(candidate)) {
        const key = relative(root, candidate);
        found.set(key, [...(found.get(key) ?? []), path]);
        break;
      }
      if (dir === root || dirname(dir) === dir || relative(root, dir).startsWith("..")) break;
    }
  }
  return found;
}

/**
 * `text` with `entries` added under its Unreleased section (made after the title when missing),
 * each category's bullets after the ones already there, new categories in Keep a Changelog's order.
 */
export function addChangelogEntries(text: string, entries: ChangelogEntries): string {
  const categories = CHANGELOG_CATEGORIES.filter((category) => (entries[category] ?? []).some((line) => line.trim() !== ""));
  if (categories.length === 0) return text;
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  const lines = text.split(/\r?\n/);
  let start = lines.findIndex((line) => UNRELEASED.test(line));
  if (start < 0) {
    const title = lines.findIndex((line) => /^#\s/.test(line));
    // After the title and the paragraph under it, before the first release.
    let at = title < 0 ? 0 : title + 1;
    while (at < lines.length && !/^##\s/.test(lines[at]!)) at++;
    lines.splice(at, 0, "## [Unreleased]", "");
    start = at;
  }
  for (const category of categories) {
    let end = start + 1;
    while (end < lines.length && !/^##\s/.test(lines[end]!)) end++;
    const bullets = entries[category]!.filter((line) => line.trim() !== "").map((line) => `- ${line.trim().replace(/^[-*]\s+/, "")}`);
    const heading = lines.slice(start + 1, end).findIndex((line) => line.trim().toLowerCase() === `### ${category.toLowerCase()}`);
    if (heading >= 0) {
      let at = start + 1 + heading + 1;
      while (at < end && !/^###\s/.test(lines[at]!)) at++;
      // Bullets go after the category's last non-blank line.
      let last = at - 1;
      while (last > start + 1 + heading && lines[last]!.trim() === "") last--;
      lines.splice(last + 1, 0, ...bullets);
    } else {
      const order = CHANGELOG_CATEGORIES.indexOf(category);
      // Before the first existing category that comes later in the canonical order, else at the section's end.
      let at = end;
      for (let i = start + 1; i < end; i++) {
        const match = /^###\s+(.+?)\s*$/.exec(lines[i]!);
        const known = match ? CHANGELOG_CATEGORIES.findIndex((c) => c.toLowerCase() === match[1]!.toLowerCase()) : -1;
        if (known > order) {
          at = i;
          break;
        }
      }
      while (at > start + 1 && lines[at - 1]!.trim() === "") at--;
      lines.splice(at, 0, "", `### ${category}`, "", ...bullets);
      if (at === end || lines[at + 3 + bullets.length]?.trim() !== "") lines.splice(at + 3 + bullets.length, 0, "");
    }
  }
  return lines.join(eol);
}

export function readChangelog(root: string, path: string): string {
  return readFileSync(join(root, path), "utf8");
}
