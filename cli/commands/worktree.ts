import { EXIT_FAILURE } from "../../core/errors/exit-codes.ts";
import { checkName, createWorktree, findWorktree, listWorktrees, mergeWorktree, newWorktreeName, removeWorktree } from "../../core/worktree/worktrees.ts";
import { writeStdout } from "../shared/write.ts";

/** `omp worktree new [name]`: the path on stdout, so `cd "$(omp wt new x)"` works. */
export async function worktreeNew(name: string | undefined, options: { from?: string }): Promise<number> {
  const made = createWorktree(process.cwd(), checkName(name ?? newWorktreeName()), { ...(options.from ? { from: options.from } : {}) });
  process.stderr.write(`omp: made worktree ${made.name} on branch ${made.branch}\n`);
  await writeStdout(`${made.path}\n`);
  return 0;
}

export async function worktreeList(options: { json?: boolean }): Promise<number> {
  const worktrees = listWorktrees(process.cwd());
  if (options.json) {
    await writeStdout(`${JSON.stringify(worktrees, null, 2)}\n`);
    return 0;
  }
  if (worktrees.length === 0) {
    await writeStdout("No omp worktrees in this repository (omp worktree new [name] makes one).\n");
    return 0;
  }
  const lines = worktrees.map((w) => `${w.name.padEnd(20)} ${(w.branch || "(detached)").padEnd(24)} ${String(w.dirty).padStart(3)} changed  ${String(w.ahead).padStart(3)} ahead  ${w.path}`);
  await writeStdout(`${lines.join("\n")}\n`);
  return 0;
}

export async function worktreeMerge(name: string, options: { keep?: boolean }): Promise<number> {
  const worktree = findWorktree(process.cwd(), name);
  const outcome = mergeWorktree(process.cwd(), worktree, options);
  if (!outcome.applied) {
    process.stderr.write(`omp: ${name} was not merged, nothing changed here: ${outcome.reason}\nomp: its work stays in ${worktree.path} (branch ${worktree.branch})\n`);
    return EXIT_FAILURE;
  }
  const where = options.keep ? `; the worktree stays at ${worktree.path}` : "; the worktree is removed";
  await writeStdout(outcome.files.length === 0 ? `${name} had no changes${where}\n` : `${name}: ${outcome.files.length} file(s) changed here, uncommitted${where}\n${outcome.files.map((f) => `  ${f}`).join("\n")}\n`);
  return 0;
}

export async function worktreeRemove(name: string, options: { force?: boolean }): Promise<number> {
  const worktree = findWorktree(process.cwd(), name);
  const { branchKept } = removeWorktree(process.cwd(), worktree, options);
  await writeStdout(`removed ${worktree.path}${branchKept ? `; its branch ${worktree.branch} has unmerged commits and is kept (git branch -D ${worktree.branch} drops it)` : ""}\n`);
  return 0;
}

export async function worktreeClear(options: { force?: boolean; dryRun?: boolean }): Promise<number> {
  const worktrees = listWorktrees(process.cwd());
  const removable = worktrees.filter((w) => options.force || (w.dirty === 0 && w.ahead === 0));
  for (const worktree of removable) {
    if (!options.dryRun) removeWorktree(process.cwd(), worktree, { force: options.force });
    await writeStdout(`${options.dryRun ? "would remove" : "removed"} ${worktree.name} (${worktree.path})\n`);
  }
  const kept = worktrees.length - removable.length;
  if (kept > 0) process.stderr.write(`omp: kept ${kept} worktree(s) with uncommitted or unmerged work (--force removes them too)\n`);
  return 0;
}
