import { type AtomicWriteResult, writeFileAtomic } from "../fs/atomic-write.ts";
import { beginWrites, recordedWrite } from "../session/checkpoints/record.ts";
import { OmpError } from "../errors/omp-error.ts";
import type { ToolContext } from "./types.ts";

/**
 * The file tools' one way to change files: every write (write, the edit engine behind edit,
 * patch, hashline and apply_patch, ast_edit, the lsp tool's rename and code actions) goes through
 * here, so each file's prior content reaches the session's checkpoints before it changes, and
 * the sandbox policy judges each path where it leads at that moment.
 */

type Writing = Pick<ToolContext, "checkpoints" | "toolCallId" | "paths" | "authorizeWrite">;

/** A write the sandbox policy refused, or the user did not allow. */
export class WriteRefused extends OmpError {}

/** Throws a WriteRefused unless the policy allows writing every path now (asking where it guards one). */
export async function authorizeWrites(context: Writing, paths: readonly string[]): Promise<void> {
  if (!context.paths) return;
  for (const path of paths) {
    const verdict = context.paths.check(path, "write");
    if (verdict.kind === "allowed") continue;
    if (verdict.kind === "denied") throw new WriteRefused(verdict.message);
    const outcome = context.authorizeWrite ? await context.authorizeWrite(verdict, context.toolCallId) : undefined;
    if (!outcome?.allow) throw new WriteRefused(outcome?.message ?? `${verdict.message}. ${verdict.howToAllow}`);
  }
}

/** Writes each file atomically, after recording what it held. */
export async function writeToolFiles(context: Writing, files: readonly { path: string; content: string | Uint8Array }[]): Promise<AtomicWriteResult[]> {
  await authorizeWrites(context, files.map((file) => file.path));
  const pending = beginWrites(context.checkpoints, files.map((file) => file.path), context.toolCallId);
  const results = files.map((file) => writeFileAtomic(file.path, file.content, { mode: "user" }));
  pending.done();
  return results;
}

/** Any other change of `paths` (deletes and moves, an editor's save), recorded around it. */
export async function recordedChange<T>(context: Writing, paths: readonly string[], change: () => T | Promise<T>): Promise<T> {
  await authorizeWrites(context, paths);
  return recordedWrite(context.checkpoints, paths, context.toolCallId, change);
}
