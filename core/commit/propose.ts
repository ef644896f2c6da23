import { complete } from "../ai/index.ts";
import type { Usage } from "../ai/messages.ts";
import type { Model } from "../ai/model.ts";
import { OmpError } from "../errors/omp-error.ts";
import { secretValuesIn } from "../sandbox/env.ts";
import { Redactor } from "../session/redact.ts";
import { changelogsFor } from "./changelog.ts";
import { gitOk, gitOut } from "./git.ts";
import { type CommitProposal, commitSystemPrompt, commitUserPrompt, parseCommitReply } from "./message.ts";
import { type StagedChanges, stagedChanges } from "./staged.ts";
import { commitStyle } from "./style.ts";

/** A commit message is short: a model that talks longer is cut off rather than paid for. */
const MAX_REPLY_TOKENS = 2_000;
const TIMEOUT_MS = 120_000;

export interface CommitDraft {
  root: string;
  changes: StagedChanges;
  proposal: CommitProposal;
  model: Model;
  usage: Usage;
}

/** The repository around `cwd` and whether it has a first commit yet; an OmpError outside one. */
export function repositoryAt(cwd: string): { root: string; hasHead: boolean } {
  let root: string;
  try {
    root = gitOut(cwd, ["rev-parse", "--show-toplevel"]).trim();
  } catch {
    throw new OmpError(`${cwd} is not in a git repository: omp commit writes a commit for the changes staged in one`);
  }
  return { root, hasHead: gitOk(cwd, ["rev-parse", "--verify", "-q", "HEAD"]) };
}

/**
 * Asks `model` for the message (and changelog entries) of the staged changes, or of all changes
 * with `all`. An OmpError when there is nothing to commit or the model failed.
 */
export async function draftCommit(
  cwd: string,
  options: { all?: boolean; context?: string; changelog: boolean; model: Model; apiKey: string | undefined; signal?: AbortSignal },
): Promise<CommitDraft> {
  const { root, hasHead } = repositoryAt(cwd);
  const redactor = new Redactor([...secretValuesIn(process.env), ...(options.apiKey ? [options.apiKey] : [])]);
  const changes = stagedChanges(root, { all: options.all, hasHead, redact: (text) => redactor.redact(text) });
  if (changes.files.length === 0) {
    throw new OmpError(options.all ? "nothing to commit: the work tree is clean" : "nothing staged to commit: stage changes with `git add`, or use `omp commit --all`");
  }
  const changelogs = options.changelog ? changelogsFor(root, changes.files.map((file) => file.path)) : new Map<string, string[]>();
  const input = { changes, style: commitStyle(root), changelogs, ...(options.context ? { context: options.context } : {}) };
  const reply = await complete(
    options.model,
    { systemPrompt: commitSystemPrompt(input), messages: [{ role: "user", content: commitUserPrompt(input), timestamp: Date.now() }], tools: [] },
    { apiKey: options.apiKey, maxTokens: Math.min(MAX_REPLY_TOKENS, options.model.maxTokens), signal: options.signal ?? AbortSignal.timeout(TIMEOUT_MS) },
  );
  if (reply.stopReason === "error" || reply.stopReason === "aborted") {
    throw new OmpError(`${options.model.provider}/${options.model.id} could not write the commit message: ${reply.errorMessage ?? reply.stopReason}`);
  }
  const text = reply.content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("");
  const proposal = parseCommitReply(text, changelogs);
  if (proposal.subject === "") throw new OmpError(`${options.model.provider}/${options.model.id} answered with no commit message; try again or pass --model`);
  return { root, changes, proposal, model: options.model, usage: reply.usage };
}
