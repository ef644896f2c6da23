import { declared } from "./declare.ts";
import { resolve as resolveDeclaration } from "./declarations/resolve.ts";
import { z } from "zod";
import { editedLines, parseConflicts, replaceHunk, sideLines } from "../git/conflict-hunks.ts";
import { type ChangePreview, MAX_PREVIEW_BYTES } from "./change-preview.ts";
import { conflictFileText, forgetConflict, type RecordedConflict, recordedConflict } from "./conflicts.ts";
import { unifiedDiff } from "./diff.ts";
import { writeToolFiles } from "./file-writes.ts";
import { errorResult, textResult } from "./format.ts";
import { displayPath } from "./paths.ts";
import type { ToolContext, ToolDefinition } from "./types.ts";

const schema = z.object({
  path: z.string().describe("conflict://<id>, from read <file>:conflicts"),
  pick: z.enum(["ours", "theirs", "both", "base", "edited"]).describe("ours/theirs: that side; both: ours then theirs; base: the diff3 base; edited: content"),
  content: z.string().optional().describe("The hunk's replacement for pick edited"),
  reason: z.string().optional().describe("Why, for the user"),
});
type ResolveInput = z.infer<typeof schema>;

export interface ResolveDetails {
  path: string;
  id: number;
  pick: ResolveInput["pick"];
  added: number;
  removed: number;
}

/** The file's text once the hunk is replaced, or why it cannot be. */
function resolution(input: ResolveInput, context: ToolContext): { conflict: RecordedConflict; before: string; after: string } | { error: string } {
  const id = /^conflict:\/\/(\d+)\/?$/i.exec(input.path.trim())?.[1];
  if (id === undefined) return { error: `${input.path} is not a conflict to resolve: give conflict://<id> as read <file>:conflicts lists it (without /ours, /theirs or /base).` };
  const conflict = recordedConflict(context, Number(id));
  if (!conflict) return { error: `There is no conflict://${id} in this session: read <file>:conflicts first; it lists each hunk's id.` };
  const shown = displayPath(context.cwd, conflict.path);
  let replacement: string[] | undefined;
  if (input.pick === "edited") {
    if (input.content === undefined) return { error: "pick edited needs content: the text that replaces the whole hunk, markers and all." };
    replacement = editedLines(input.content, conflict.lines[0]!.endsWith("\r"));
  } else {
    if (input.content !== undefined) return { error: `content is only for pick edited; pick ${input.pick} takes that side as it is.` };
    replacement = sideLines(conflict, input.pick);
    if (!replacement) return { error: `conflict://${id} has no base section (the merge did not use diff3 markers): pick ours, theirs, both or edited.` };
  }
  const before = conflictFileText(conflict.path, shown);
  if (typeof before !== "string") return before;
  const after = replaceHunk(before, conflict, replacement);
  if (after === undefined) return { error: `${shown} no longer holds conflict://${id} as it was read (resolved or changed since): read ${shown}:conflicts again.` };
  return { conflict, before, after };
}

export const resolveTool: ToolDefinition<typeof schema, ResolveDetails> = {
  ...declared(resolveDeclaration),
  schema,
  async execute(input, context) {
    const found = resolution(input, context);
    if ("error" in found) return errorResult(found.error);
    const { conflict, before, after } = found;
    const shown = displayPath(context.cwd, conflict.path);
    await writeToolFiles(context, [{ path: conflict.path, content: after }]);
    forgetConflict(context, conflict.id);
    context.fileReads?.recordWrite(conflict.path, Buffer.from(after, "utf8"));
    const diff = unifiedDiff(before, after, shown);
    const left = parseConflicts(after).length;
    const rest = left === 0 ? `${shown} has no conflict markers left.` : `${shown} still has ${left === 1 ? "1 conflict" : `${left} conflicts`}.`;
    return textResult(`Resolved conflict://${conflict.id} in ${shown} (lines ${conflict.startLine}-${conflict.endLine}) with ${input.pick}. ${rest}`, {
      path: conflict.path,
      id: conflict.id,
      pick: input.pick,
      added: diff.added,
      removed: diff.removed,
    });
  },
  async preview(input, context) {
    const found = resolution(input, context);
    if ("error" in found || found.before.length + found.after.length > MAX_PREVIEW_BYTES) return undefined;
    const { conflict, before, after } = found;
    const shown = displayPath(context.cwd, conflict.path);
    const diff = unifiedDiff(before, after, shown);
    return [{ path: conflict.path, shown, op: "update", oldText: before, newText: after, diff: diff.text, added: diff.added, removed: diff.removed } satisfies ChangePreview];
  },
};
