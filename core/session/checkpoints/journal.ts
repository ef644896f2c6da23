import { appendFileSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { settleRecordings } from "./deferred.ts";

/**
 * What the checkpoint store knows, one JSON line per fact, appended and never rewritten: a file
 * omp changed (its content before, as a blob, and the hash of what omp left there), or a command
 * whose changes nobody could see (outside a git repository). Each is tied to the session entry
 * that made it (the assistant message whose tool call it was), so a rewind to an earlier turn
 * finds everything done on the branch since.
 */

/** A blob's sha256; "absent": no file; "unsaved": the content was over the store's cap. */
const State = z.union([z.literal("absent"), z.literal("unsaved"), z.string().regex(/^[0-9a-f]{64}$/)]);

export const CheckpointRecord = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("file"),
    /** The session entry the change belongs to; null for a rewind's own restores. */
    entryId: z.string().nullable(),
    toolCallId: z.string().optional(),
    /** write: a file tool (write, edit, apply_patch, ast_edit, lsp); bash: seen in a git snapshot; rewind: restored. */
    source: z.enum(["write", "bash", "rewind"]),
    path: z.string(),
    before: State,
    /**
     * `before`'s bytes, base64, when they travel with the record (a command's small prior content,
     * see store.ts's BlobStore.inline): the blob store takes them when a rewind needs them.
     */
    content: z.string().optional(),
    /** sha256 (or "absent") of what omp left on disk: anything else there later was changed outside omp. */
    after: z.string(),
    time: z.string(),
  }),
  z.object({
    kind: z.literal("unseen"),
    entryId: z.string().nullable(),
    toolCallId: z.string().optional(),
    /** The command, as the user reads it. */
    what: z.string(),
    /** no-git: not in a git work tree; snapshot-failed: git could not snapshot it (or not in time); not-a-file: a symlink or folder changed. */
    why: z.enum(["no-git", "snapshot-failed", "not-a-file"]),
    time: z.string(),
  }),
]);
export type CheckpointRecord = z.infer<typeof CheckpointRecord>;

const journalPath = (dir: string) => join(dir, "journal.ndjson");

export function appendRecords(dir: string, records: CheckpointRecord[]): void {
  if (records.length === 0) return;
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  // One write on an O_APPEND descriptor per batch: a crash leaves at worst a torn last line, skipped on reading.
  appendFileSync(journalPath(dir), records.map((record) => `${JSON.stringify(record)}\n`).join(""), { mode: 0o600 });
}

/** Every readable record, in the order they happened. */
export function readRecords(dir: string): CheckpointRecord[] {
  settleRecordings();
  let text: string;
  try {
    text = readFileSync(journalPath(dir), "utf8");
  } catch {
    return [];
  }
  return text.split("\n").flatMap((line) => {
    if (line === "") return [];
    try {
      const parsed = CheckpointRecord.safeParse(JSON.parse(line));
      return parsed.success ? [parsed.data] : [];
    } catch {
      return [];
    }
  });
}
