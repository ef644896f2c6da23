import type { z } from "zod";
import { closest, configError, describeFound, formatKeyPath } from "./config-error.ts";
import { allowedKeys, schemaAt } from "./schema-walk.ts";

/**
 * Schema validation with errors a person can act on. Kept apart from config-error.ts because it
 * needs zod's schemas at run time, which start-up avoids (see config-cache.ts).
 */

type Issue = z.core.$ZodIssue;

/** Parses `data` with `schema`, or throws an OmpError that names the file, the key, what was found and what is allowed. */
export function validateConfig<S extends z.ZodType>(schema: S, data: unknown, file: string): z.output<S> {
  const result = schema.safeParse(data);
  if (result.success) return result.data;
  throw configError(
    file,
    result.error.issues.map((issue) => describeIssue(issue, data, schema)),
  );
}

/** A value the schema refused, taken out of the file's values: where it was and why. */
export interface SetAside {
  /** The dotted key, as `omp config unset` takes it; empty for the whole file. */
  key: string;
  /** As a validation error says it: `tools.disabeld: unknown key (did you mean disabled?); …`. */
  problem: string;
  /** The key is one the schema does not know, rather than a known key with a wrong value. */
  unknown: boolean;
  /** For an unknown key: the known one it most likely meant. */
  hint?: string;
}

/**
 * The values the schema accepts, with every key it refuses (unknown, or of a wrong value) taken
 * out, and what was taken: a file that is partly wrong still gives the rest.
 */
export function salvageConfig<S extends z.ZodType>(schema: S, data: Record<string, unknown>): { values: Record<string, unknown>; setAside: SetAside[] } {
  const values = structuredClone(data);
  const setAside: SetAside[] = [];
  // Each pass takes out what the schema named; a value inside a refused one is never named again.
  for (let pass = 0; pass < 8; pass++) {
    const result = schema.safeParse(values);
    if (result.success) return { values, setAside };
    for (const issue of result.error.issues) {
      const one = issue.code === "unrecognized_keys" ? issue.keys.map((key) => ({ issue: { ...issue, keys: [key] } as Issue, path: [...issue.path, key] })) : [{ issue, path: issue.path }];
      for (const { issue: single, path: named } of one) {
        // A refused list item takes its whole list out: a list with a hole is not what the user wrote.
        const cut = named.findIndex((key) => typeof key === "number");
        const path = cut === -1 ? named : named.slice(0, cut);
        const problem = describeIssue(single, data, schema);
        const unknown = single.code === "unrecognized_keys";
        if (path.length === 0) return { values: {}, setAside: [...setAside, { key: "", problem, unknown }] };
        const hint = unknown ? closest(String(named.at(-1)), allowedKeys(schemaAt(schema, issue.path))) : undefined;
        setAside.push({ key: formatKeyPath(path), problem, unknown, ...(hint ? { hint } : {}) });
        removeAt(values, path);
      }
    }
  }
  return { values: {}, setAside };
}

function removeAt(data: Record<PropertyKey, unknown>, path: readonly PropertyKey[]): void {
  const parent = valueAt(data, path.slice(0, -1));
  if (parent !== null && typeof parent === "object") delete (parent as Record<PropertyKey, unknown>)[path.at(-1)!];
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
