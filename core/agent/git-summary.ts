import { findRepo } from "../git/repo.ts";
import { gitAsync } from "../git/run.ts";

/** Longest wait for git: a huge repository must not hold up the first request. */
const GIT_TIMEOUT_MS = 2_000;

async function git(cwd: string, args: string[], withoutFilters = false): Promise<string | null> {
  const result = await gitAsync(args, { cwd, timeoutMs: GIT_TIMEOUT_MS, withoutFilters });
  return result.ok ? result.out.toString("utf8").trimEnd() : null;
}

/**
 * A few lines about the repository for the system prompt; empty outside git or when git is
 * missing. The two git commands run in parallel, and callers start this early so that it overlaps
 * with the rest of start-up.
 */
export async function gitSummary(cwd: string): Promise<string> {
  // Outside a repository git would only fail, three processes later, before the first request;
  // git finds one as findRepo does (omp's git calls drop GIT_DIR and the like).
  if (!findRepo(cwd)) return "";
  // status may hash files through the repository's content filters: those are emptied first.
  const [status, log] = await Promise.all([
    git(cwd, ["status", "--porcelain=v1", "--branch", "--untracked-files=normal", "--ignore-submodules=all"], true),
    git(cwd, ["log", "--oneline", "--no-show-signature", "-5"]),
  ]);
  if (status === null) return "";
  const [head = "", ...changed] = status.split("\n").filter((line) => line !== "");
  const lines = [`Branch: ${branchOf(head)}`];
  lines.push(changed.length === 0 ? "Working tree: clean" : `Working tree: ${changed.length} changed path(s)\n${changed.slice(0, 20).join("\n")}${changed.length > 20 ? "\n…" : ""}`);
  if (log) lines.push(`Recent commits:\n${log}`);
  return lines.join("\n");
}

/** The branch from `## main...origin/main [ahead 1]`, `## No commits yet on main` or `## HEAD (no branch)`. */
function branchOf(head: string): string {
  const text = head.replace(/^## /, "");
  const unborn = /^(?:No commits yet|Initial commit) on (.+)$/.exec(text);
  if (unborn) return unborn[1]!;
  if (text.startsWith("HEAD (no branch)")) return "HEAD (detached)";
  return text.split("...")[0]!.split(" ")[0]!;
}
