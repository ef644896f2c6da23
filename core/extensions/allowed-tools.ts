import type { FrontmatterValue } from "./frontmatter.ts";

/**
 * `allowed-tools` as real files write it: a YAML list, or one string of entries separated by
 * commas or spaces, where an entry may carry a pattern in parentheses with spaces inside
 * (`Bash(git status:*), Bash(git diff:*)`, `Read Grep Glob`).
 */
export function parseAllowedTools(value: FrontmatterValue | undefined): string[] {
  if (value === undefined || typeof value === "boolean") return [];
  const items = Array.isArray(value) ? value : [value];
  const out: string[] = [];
  for (const item of items) {
    let depth = 0;
    let current = "";
    for (const char of item) {
      if (char === "(") depth++;
      if (char === ")") depth = Math.max(0, depth - 1);
      if (depth === 0 && (char === "," || /\s/.test(char))) {
        if (current.trim()) out.push(current.trim());
        current = "";
        continue;
      }
      current += char;
    }
    if (current.trim()) out.push(current.trim());
  }
  return out;
}
