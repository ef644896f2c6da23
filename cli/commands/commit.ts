import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Runtime } from "../../core/agent/runtime.ts";
import { rolePatterns } from "../../core/agent/model-roles.ts";
import { addChangelogEntries, readChangelog } from "../../core/commit/changelog.ts";
import { gitOut, userGit } from "../../core/commit/git.ts";
import { messageText } from "../../core/commit/message.ts";
import { type CommitDraft, draftCommit } from "../../core/commit/propose.ts";
import { EXIT_FAILURE } from "../../core/errors/exit-codes.ts";
import { OmpError } from "../../core/errors/omp-error.ts";
import { loadAgentConfig } from "../../core/session-host/agent-config.ts";
import { usageRecorder } from "../../core/usage/record.ts";
import { roleFlags } from "../options/role-flags.ts";
import { firstLine } from "../shared/stdin-line.ts";
import { writeStdout } from "../shared/write.ts";

export interface CommitFlags {
  push?: boolean;
  dryRun?: boolean;
  /** false with --no-changelog. */
  changelog?: boolean;
  context?: string;
  model?: string;
  all?: boolean;
  yes?: boolean;
}

/**
 * `omp commit`: a message for the staged changes (or all of them with --all), written by the
 * `commit` role's model (else smol's, else the default) in the repository's own style, changelog
 * entries where the project keeps a CHANGELOG.md; shown, then committed once the user says yes or
 * edited it (--yes commits at once, --dry-run changes nothing), and pushed with --push.
 */
export async function runCommit(flags: CommitFlags): Promise<number> {
  const cwd = process.cwd();
  const env = process.env;
  const roles = roleFlags({}, env);
  const { settings, modelsConfig } = await loadAgentConfig({ cwd, env, runtime: roles ? { modelRoles: roles } : {} });
  const runtime = new Runtime({ cwd, env, settings, modelsConfig, tools: [], noSession: true });
  const patterns = rolePatterns(runtime);
  const selection = await runtime.selectModel(flags.model ?? patterns.commit ?? patterns.smol, flags.model !== undefined);
  const draft = await draftCommit(cwd, { all: flags.all, context: flags.context, changelog: flags.changelog !== false, model: selection.model, apiKey: selection.apiKey });
  usageRecorder(env)(draft.model, draft.usage);
  await writeStdout(describeDraft(draft));
  if (flags.dryRun) {
    await writeStdout("(dry run: nothing was staged or committed)\n");
    return 0;
  }
  let message = messageText(draft.proposal);
  if (!flags.yes) {
    const answer = (await firstLine("Commit with this message? [y]es, [e]dit, [n]o: ")).trim().toLowerCase();
    if (answer === "e" || answer === "edit") message = editMessage(draft.root, message);
    else if (answer !== "y" && answer !== "yes") {
      process.stderr.write("omp: nothing committed\n");
      return EXIT_FAILURE;
    }
  }
  return commitDraft(draft, message, flags);
}

function describeDraft(draft: CommitDraft): string {
  const lines = [`${draft.changes.summary} (message by ${draft.model.provider}/${draft.model.id})`, "", ...messageText(draft.proposal).trimEnd().split("\n").map((line) => `    ${line}`)];
  for (const [path, entries] of draft.proposal.changelog) {
    lines.push("", `${path}:`);
    for (const [category, items] of Object.entries(entries)) lines.push(`  ${category}`, ...items.map((item) => `    - ${item}`));
  }
  return `${lines.join("\n")}\n\n`;
}

/** The message after the user's editor had it, as `git commit` does: `#` lines dropped; empty cancels. */
function editMessage(root: string, message: string): string {
  const dir = mkdtempSync(join(tmpdir(), "omp-commit-"));
  const file = join(dir, "COMMIT_EDITMSG");
  try {
    writeFileSync(file, `${message}\n# Lines starting with '#' are dropped; an empty message cancels the commit.\n`);
    // git's own choice: GIT_EDITOR, core.editor, VISUAL, EDITOR, then vi.
    const editor = gitOut(root, ["var", "GIT_EDITOR"], [0, 1]).trim() || "vi";
    const result = Bun.spawnSync(["sh", "-c", `${editor} "$1"`, "editor", file], { cwd: root, stdin: "inherit", stdout: "inherit", stderr: "inherit" });
    if (result.exitCode !== 0) throw new OmpError(`the editor (${editor}) exited with ${result.exitCode}: nothing committed`);
    const edited = readFileSync(file, "utf8")
      .split("\n")
      .filter((line) => !line.startsWith("#"))
      .join("\n")
      .trim();
    if (edited === "") throw new OmpError("the message is empty: nothing committed");
    return `${edited}\n`;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function commitDraft(draft: CommitDraft, message: string, flags: CommitFlags): number {
  const { root } = draft;
  if (flags.all) mustGit(root, ["add", "-A"], "staging the changes");
  for (const [path, entries] of draft.proposal.changelog) {
    writeFileSync(join(root, path), addChangelogEntries(readChangelog(root, path), entries));
    mustGit(root, ["add", "--", path], `staging ${path}`);
  }
  // git's own output (hooks, the summary) goes to the user as `git commit` would show it.
  const committed = userGit(root, ["commit", "-F", "-"], { input: message });
  process.stderr.write(committed.output);
  if (committed.code !== 0) throw new OmpError(`git commit failed (exit ${committed.code}); the changes stay staged`);
  if (flags.push) {
    const pushed = userGit(root, ["push"], { inheritStdio: true });
    if (pushed.code !== 0) throw new OmpError(`committed, but git push failed (exit ${pushed.code}); push again with \`git push\``);
  }
  return 0;
}

function mustGit(root: string, args: string[], what: string): void {
  try {
    gitOut(root, args);
  } catch (error) {
    throw new OmpError(`${what} failed: ${(error as Error).message}`);
  }
}
