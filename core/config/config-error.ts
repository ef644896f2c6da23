import type { z } from "zod";
import { OmpError } from "../errors/omp-error.ts";
import { displayPath } from "../paths.ts";
import { allowedKeys, schemaAt } from "./schema-walk.ts";

/** Bad configuration is bad input, like a bad flag: the same exit status as a usage error. */
export const EXIT_BAD_CONFIG = 2;

type Issue = z.core.$ZodIssue;

/** One line per problem, each starting with the file, so the person knows where to look. */
export function configError(file: string, problems: string[]): OmpError {
  const where = displayPath(file);
  return new OmpError(problems.map((problem) => `${where}: ${problem}`).join("\n"), { exitCode: EXIT_BAD_CONFIG });
}

/** Parses `data` with `schema`, or throws an OmpError that names the file, the key, what was found and what is allowed. */
export function validateConfig<S extends z.ZodType>(schema: S, data: unknown, file: string): z.output<S> {
  const result = schema.safeParse(data);
  if (result.success) return result.data;
  throw configError(
    file,
    result.error.issues.map((issue) => describeIssue(issue, data, schema)),
  );
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

const EXPECTED_TYPE: Record<string, string> = {
  string: "a string",
  number: "a number",
  int: "a whole number",
  boolean: "true or false",
  array: "a list",
  object: "a mapping",
  record: "a mapping",
};

function valueAt(data: unknown, path: readonly PropertyKey[]): unknown {
  let current = data;
  for (const key of path) {
    if (current === null || typeof current !== "object") return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}

function describeIssue(issue: Issue, data: unknown, schema: z.ZodType): string {
  const found = valueAt(data, issue.path);
  const at = (path: readonly PropertyKey[]) => (path.length === 0 ? "" : `${formatKeyPath(path)}: `);
  switch (issue.code) {
    case "unrecognized_keys": {
      const allowed = allowedKeys(schemaAt(schema, issue.path));
      return issue.keys
        .map((key) => {
          const hint = closest(key, allowed);
          const list = allowed.length > 0 ? `; allowed here: ${allowed.join(", ")}` : "";
          return `${at([...issue.path, key])}unknown key${hint ? ` (did you mean ${hint}?)` : ""}${list}`;
        })
        .join("\n");
    }
    case "invalid_value":
      return `${at(issue.path)}got ${describeFound(found)}, expected one of ${issue.values.map(String).join(", ")}`;
    case "invalid_type":
      return `${at(issue.path)}got ${describeFound(found)}, expected ${EXPECTED_TYPE[issue.expected] ?? issue.expected}`;
    case "too_small":
    case "too_big": {
      const bound = issue.code === "too_small" ? issue.minimum : issue.maximum;
      const op = issue.code === "too_small" ? (issue.inclusive ? "≥" : ">") : issue.inclusive ? "≤" : "<";
      const what =
        issue.origin === "string" ? `a string of length ${op} ${bound}` : issue.origin === "array" ? `a list of length ${op} ${bound}` : `a number ${op} ${bound}`;
      return `${at(issue.path)}got ${describeFound(found)}, expected ${what}`;
    }
    case "invalid_format":
      return `${at(issue.path)}got ${describeFound(found)}, expected ${issue.format === "url" ? "a URL" : `a ${issue.format}`}`;
    default:
      return `${at(issue.path)}${issue.message}`;
  }
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

function editDistance(a: string, b: string): number {
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
