import { gitOut } from "./git.ts";

/** Subjects of the latest commits the model imitates. */
const HISTORY = 20;
const CONVENTIONAL = /^[a-z]+(\([^)]+\))?!?: \S/;

export interface CommitStyle {
  subjects: string[];
  /** Most recent subjects follow Conventional Commits (`type(scope): summary`). */
  conventional: boolean;
  /** The types the log uses, most used first (feat, fix, ...), when conventional. */
  types: string[];
}

/** How this repository writes its commit subjects, from its recent history (none before the first commit). */
export function commitStyle(root: string): CommitStyle {
  let subjects: string[];
  try {
    subjects = gitOut(root, ["log", `-n${HISTORY}`, "--no-merges", "--format=%s"]).split("\n").filter(Boolean);
  } catch {
    // No commit yet: no style to follow.
    subjects = [];
  }
  const matching = subjects.filter((subject) => CONVENTIONAL.test(subject));
  const counts = new Map<string, number>();
  for (const subject of matching) {
    const type = /^[a-z]+/.exec(subject)![0];
    counts.set(type, (counts.get(type) ?? 0) + 1);
  }
  return {
    subjects,
    conventional: subjects.length > 0 && matching.length * 2 >= subjects.length,
    types: [...counts.entries()].sort((a, b) => b[1] - a[1]).map(([type]) => type),
  };
}
