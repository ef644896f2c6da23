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
