import type { Command } from "commander";
import type { CommitFlags } from "../commands/commit.ts";
import type { Run } from "../options/options.ts";

/** `omp commit`: a commit message written by a model from the staged diff (commit.ts). */
export function describeCommit(program: Command, run: Run): void {
  program
    .command("commit")
    .description("write a commit message for the staged changes in the repository's style, update changelogs, and commit after you confirm")
    .option("-a, --all", "commit every change in the work tree (git add -A), not only the staged ones")
    .option("--dry-run", "show the message and changelog entries; stage and commit nothing")
    .option("--push", "git push after committing")
    .option("--no-changelog", "leave CHANGELOG.md files alone")
    .option("-c, --context <text>", "what the model should know about the change")
    .option("-m, --model <model>", "the model that writes the message (default: the commit role's, else smol's, else the default model)")
    .option("-y, --yes", "commit without asking")
    .addHelpText(
      "after",
      "\nThe diff goes to the model within a budget: large files are cut, binary and generated files (lock files,\n" +
        "minified or built output) are named with their line counts only. Exit status: 0 committed (or --dry-run),\n" +
        "1 not committed (declined, nothing staged, git or the model failed).",
    )
    .action(run(async (options: CommitFlags) => (await import("../commands/commit.ts")).runCommit(options)));
}

/** `omp worktree` (`wt`): omp's git worktrees under ~/.omp/wt (worktree.ts). */
export function describeWorktree(program: Command, run: Run): void {
  const worktree = program.command("worktree").alias("wt").description("git worktrees of this repository under ~/.omp/wt, each on its own branch omp/<name>");
  const load = () => import("../commands/worktree.ts");
  worktree
    .command("new [name]")
    .alias("add")
    .description("make a worktree on a new branch omp/<name> (default name: wt-<random>) and print its path")
    .option("--from <commit>", "start from this commit-ish instead of HEAD")
    .action(run(async (name: string | undefined, options: { from?: string }) => (await load()).worktreeNew(name, options)));
  worktree
    .command("list", { isDefault: true })
    .description("omp's worktrees of this repository: branch, uncommitted changes, commits ahead")
    .option("--json", "print JSON")
    .action(run(async (options: { json?: boolean }) => (await load()).worktreeList(options)));
  worktree
    .command("merge <name>")
    .description("bring a worktree's commits and changes into this work tree as uncommitted changes, whole or not at all; then remove it")
    .option("--keep", "keep the worktree and its branch afterwards")
    .action(run(async (name: string, options: { keep?: boolean }) => (await load()).worktreeMerge(name, options)));
  worktree
    .command("remove <name>")
    .alias("rm")
    .description("remove a worktree (and its branch when merged); refuses to lose uncommitted changes without --force")
    .option("--force", "remove even with uncommitted changes or unmerged commits")
    .action(run(async (name: string, options: { force?: boolean }) => (await load()).worktreeRemove(name, options)));
  worktree
    .command("clear")
    .description("remove every omp worktree of this repository that has nothing unmerged (all of them with --force)")
    .option("--force", "remove them all, whatever they hold")
    .option("-n, --dry-run", "only say what would be removed")
    .action(run(async (options: { force?: boolean; dryRun?: boolean }) => (await load()).worktreeClear(options)));
}
