import { type AtomicWriteResult, writeFileAtomic } from "../fs/atomic-write.ts";
import { beginWrites, recordedWrite } from "../session/checkpoints/record.ts";
import type { ToolContext } from "./types.ts";

/**
 * The file tools' one way to change files: every write (write, the edit engine behind edit,
 * patch, hashline and apply_patch, ast_edit, the lsp tool's rename and code actions) goes through
 * here, so each file's prior content reaches the session's checkpoints before it changes.
 */

type Recording = Pick<ToolContext, "checkpoints" | "toolCallId">;

/** Writes each file atomically, after recording what it held. */
export function writeToolFiles(context: Recording, files: readonly { path: string; content: string | Uint8Array }[]): AtomicWriteResult[] {
  const pending = beginWrites(context.checkpoints, files.map((file) => file.path), context.toolCallId);
  const results = files.map((file) => writeFileAtomic(file.path, file.content, { mode: "user" }));
  pending.done();
  return results;
}

/** Any other change of `paths` (deletes and moves, an editor's save), recorded around it. */
export function recordedChange<T>(context: Recording, paths: readonly string[], change: () => T | Promise<T>): Promise<T> {
  return recordedWrite(context.checkpoints, paths, context.toolCallId, change);
}
