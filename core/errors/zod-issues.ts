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

/** One issue as `path: message`; at the root, `root: message`, or the bare message when `root` is "". */
export function describeIssue(issue: Issue, root: string): string {
  const where = issuePath(issue) || root;
  return where === "" ? issue.message : `${where}: ${issue.message}`;
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
