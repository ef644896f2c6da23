import { type Dirent, closeSync, openSync, readSync, readdirSync } from "node:fs";

/** Frontmatter and a first paragraph are in the first few KB; bodies are read when used. */
const HEAD_BYTES = 16 * 1024;

/** The first `bytes` of a file as text (a multi-byte character cut at the end is dropped). */
export function readHead(path: string, bytes = HEAD_BYTES): string {
  const fd = openSync(path, "r");
  try {
    const buffer = Buffer.allocUnsafe(bytes);
    const read = readSync(fd, buffer, 0, bytes, 0);
    return buffer.subarray(0, read).toString("utf8").replace(/\uFFFD$/, "");
  } finally {
    closeSync(fd);
  }
}

/** A directory's entries sorted by name; [] when it cannot be read. */
export function listDir(dir: string): Dirent[] {
  try {
    return readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  } catch {
    return [];
  }
}

/** A name as a slash command or skill name: lower case, words joined by dashes ("Writing Rules" → "writing-rules"). */
export function slugify(name: string): string {
  return name
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9:_-]+/g, "-")
    .replace(/-{2,}/g, "-")
    .replace(/^-|-$/g, "");
}

/** The first paragraph of Markdown text that is not a heading, on one line. */
export function firstParagraph(body: string): string {
  for (const block of body.split(/\r?\n\s*\r?\n/)) {
    const lines = block
      .split(/\r?\n/)
      .map((line) => line.trim())
      .filter((line) => line && !line.startsWith("#") && !line.startsWith("```") && !line.startsWith("<!--"));
    if (lines.length > 0) return lines.join(" ");
  }
  return "";
}
