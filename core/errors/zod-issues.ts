import type { z } from "zod";

/**
 * zod's failures in the words omp shows people, in one place. (Config files get a richer account,
 * naming what was found and what is allowed: config/validate-config.ts.)
 */

type Issue = z.core.$ZodIssue;

/** Where the issue is, as `messages.0.content`; "" at the root. */
export function issuePath(issue: Issue): string {
  return issue.path.map(String).join(".");
}

const AN = /^[aeiou]/;

/**
 * What is wrong, in omp's words rather than the validator's ("Invalid input: expected string,
 * received number"): what was expected, and the limit or the allowed values. A message a schema
 * set itself (refine, custom) is already ours and kept.
 */
export function issueWords(issue: Issue): string {
  switch (issue.code) {
    case "invalid_type":
      return issue.expected === "undefined" ? "not allowed here" : `expected ${AN.test(issue.expected) ? "an" : "a"} ${issue.expected}`;
    case "too_small": {
      const at = Number(issue.minimum);
      if (issue.origin === "string") return at <= 1 ? "must not be empty" : `must be at least ${at} characters`;
      if (issue.origin === "array" || issue.origin === "set") return `needs at least ${at} item${at === 1 ? "" : "s"}`;
      return `must be ${issue.inclusive === false ? "more than" : "at least"} ${at}`;
    }
    case "too_big": {
      const at = Number(issue.maximum);
      if (issue.origin === "string") return `must be at most ${at} characters`;
      if (issue.origin === "array" || issue.origin === "set") return `takes at most ${at} item${at === 1 ? "" : "s"}`;
      return `must be ${issue.inclusive === false ? "less than" : "at most"} ${at}`;
    }
    case "invalid_value":
      return `expected ${issue.values.length === 1 ? JSON.stringify(issue.values[0]) : `one of ${issue.values.map((value) => JSON.stringify(value)).join(", ")}`}`;
    case "unrecognized_keys":
      return `unknown key${issue.keys.length === 1 ? "" : "s"} ${issue.keys.join(", ")}`;
    case "invalid_format":
      return `not a valid ${issue.format}`;
    default:
      return issue.message;
  }
}

/** One issue as `path: what is wrong`; at the root, `root: …`, or the bare words when `root` is "". */
export function describeIssue(issue: Issue, root: string): string {
  const where = issuePath(issue) || root;
  const words = issueWords(issue);
  return where === "" ? words : `${where}: ${words}`;
}

/**
 * A failure as its first issue (`all`: every issue, the branches of a failed union opened up,
 * repeats dropped, joined by "; "); see describeIssue for `root`.
 */
export function describeZodError(error: z.ZodError, root: string, options: { all?: boolean } = {}): string {
  if (!options.all) {
    const issue = error.issues[0];
    return issue ? describeIssue(issue, root) : "invalid value";
  }
  const issues = error.issues.flatMap((issue) => (issue.code === "invalid_union" ? issue.errors.flat() : [issue]));
  return [...new Set(issues.map((issue) => describeIssue(issue, root)))].join("; ");
}
