import { OmpError } from "../errors/omp-error.ts";
import { displayPath } from "../paths.ts";
import { EXIT_USAGE } from "../errors/exit-codes.ts";

/** One line per problem, each starting with the file, so the person knows where to look. */
export function configError(file: string, problems: string[]): OmpError {
  const where = displayPath(file);
  return new OmpError(problems.map((problem) => `${where}: ${problem}`).join("\n"), { exitCode: EXIT_USAGE });
}

/** `a.b[0].c`, the way a person would point at the key in the file. */
export function formatKeyPath(path: readonly PropertyKey[]): string {
  let text = "";
  for (const key of path) {
    if (typeof key === "number") text += `[${key}]`;
    else text += text === "" ? String(key) : `.${String(key)}`;
  }
  return text;
}

/** How a value found in a file is shown in an error: strings quoted, lists and mappings by kind. */
export function describeFound(value: unknown): string {
  if (value === undefined) return "nothing";
  if (value === null) return "an empty value";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "a mapping";
  return JSON.stringify(value);
}

/** The allowed key a typo most likely meant: within two edits, or a third of its length for long keys. */
export function closest(key: string, allowed: string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.max(2, Math.floor(key.length / 3)) + 1;
  for (const candidate of allowed) {
    const distance = editDistance(key.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/** Levenshtein distance, for "did you mean" hints. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}
