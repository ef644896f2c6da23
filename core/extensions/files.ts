import { type Dirent, readdirSync } from "node:fs";

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
