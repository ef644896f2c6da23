/**
 * The exact change a file-writing call will make, worked out before it runs, so an approval shows
 * what the user is agreeing to (and a denial what was turned down). Its wire schema, checked
 * against this type, is in core/session-host/protocol.ts (kept there so start-up loads no zod).
 */
export interface ChangePreview {
  /** Absolute path of the file written (the target of a link). */
  path: string;
  /** As the user knows it: relative to the working directory when inside it. */
  shown: string;
  op: "create" | "update" | "delete";
  /** The whole file before; null when it does not exist yet. */
  oldText: string | null;
  /** The whole file after; null when the call deletes it. */
  newText: string | null;
  /** The unified diff (`@@` hunks with 3 lines of context). */
  diff: string;
  added: number;
  removed: number;
}

/** What a denied call keeps of its preview in its result: the diff, not the whole file twice. */
export type ChangeSummary = Omit<ChangePreview, "oldText" | "newText">;

export function summarizeChanges(changes: readonly ChangePreview[]): ChangeSummary[] {
  return changes.map(({ oldText: _old, newText: _new, ...summary }) => summary);
}

/**
 * How large a preview may be, both texts and the diff of every file together: an approval request
 * carries it to the terminal, an rpc host or an editor, so a write over a big file shows the
 * call's summary instead of the file twice.
 */
export const MAX_PREVIEW_BYTES = 1024 * 1024;

/** `changes` when they fit MAX_PREVIEW_BYTES, else undefined (the approval then shows the summary only). */
export function boundedPreview(changes: readonly ChangePreview[] | undefined): ChangePreview[] | undefined {
  if (!changes) return undefined;
  let bytes = 0;
  for (const change of changes) bytes += (change.oldText?.length ?? 0) + (change.newText?.length ?? 0) + change.diff.length;
  return bytes <= MAX_PREVIEW_BYTES ? [...changes] : undefined;
}
