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
