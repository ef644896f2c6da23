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

/**
 * Command substitution runs commands no pattern can see, and a redirection writes files no
 * pattern names: only a plain `Bash` entry allows them (`2>&1` is fine).
 */
const UNSEEN = /\$\(|`|[<>]/;

/**
 * Whether `allowed` permits running `command` with Bash, by Claude Code's rules: `Bash` or
 * `Bash(*)` allows anything; `Bash(git status:*)` and `Bash(git status *)` allow that command with
 * any arguments; `Bash(npm test)` only exactly that; other `*` match anything. A command chained
 * with `&&`, `||`, `;`, `|` or a newline is allowed only when every part is.
 */
export function bashAllowed(allowed: readonly string[], command: string): boolean {
  const patterns: string[] = [];
  for (const entry of allowed) {
    const match = /^Bash(?:\((.*)\))?$/s.exec(entry.trim());
    if (!match) continue;
    const pattern = (match[1] ?? "").trim();
    if (pattern === "" || pattern === "*") return true;
    patterns.push(pattern);
  }
  if (patterns.length === 0 || UNSEEN.test(command.replace(/\d*>&\d/g, ""))) return false;
  const parts = splitChain(command);
  return parts.length > 0 && parts.every((part) => patterns.some((pattern) => matches(pattern, part)));
}

function matches(pattern: string, command: string): boolean {
  const prefix = /^(.*?)(?::\*| \*)$/s.exec(pattern);
  if (prefix) {
    const head = prefix[1]!.trim();
    if (command === head || command.startsWith(`${head} `)) return true;
  }
  if (!pattern.includes("*")) return command === pattern;
  const regex = new RegExp(`^${pattern.split("*").map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&")).join(".*")}$`, "s");
  return regex.test(command);
}

/** The commands of a chain, split outside quotes; each trimmed. */
function splitChain(command: string): string[] {
  const parts: string[] = [];
  let current = "";
  let quote: string | undefined;
  for (let i = 0; i < command.length; i++) {
    const char = command[i]!;
    if (quote) {
      if (char === quote) quote = undefined;
      current += char;
      continue;
    }
    if (char === "'" || char === '"') {
      quote = char;
      current += char;
      continue;
    }
    const two = command.slice(i, i + 2);
    if (two === "&&" || two === "||") {
      parts.push(current);
      current = "";
      i++;
      continue;
    }
    if (char === ";" || char === "|" || char === "\n" || (char === "&" && command[i + 1] !== ">" && command[i - 1] !== ">")) {
      parts.push(current);
      current = "";
      continue;
    }
    current += char;
  }
  parts.push(current);
  return parts.map((part) => part.trim()).filter(Boolean);
}
