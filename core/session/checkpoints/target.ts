/**
 * Where a tool call's file changes are recorded: the session and the entry the call belongs to.
 * Plain data on the tool context, so the agent need not load the checkpoint code to pass it.
 */
export interface CheckpointTarget {
  /** The session file; its checkpoints live beside it (store.ts). */
  session: string;
  /** The session's working directory (its git repository holds the snapshots). */
  cwd: string;
  /** The session's id: names the git ref of its snapshots. */
  sessionId: string;
  /** The assistant message whose tool calls these are; null outside a turn. */
  entryId: string | null;
  /** The user's turn (one prompt's run) the call belongs to: a command's snapshot serves the next command of the same turn. */
  turn?: string;
  /** The `checkpoints.maxBytes` setting. */
  maxBytes: number;
}
