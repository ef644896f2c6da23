import type { NewSessionEntry } from "../session/schema.ts";
import type { SessionWriter } from "../session/writer.ts";

/**
 * Writes an agent's entries to its session. An entry recorded right before a model request (the
 * prompt, steering, tool results) may wait, during a run, until that request is on its way
 * ({@link onRequest}), so that validation, redaction and, for a new session, creating the file
 * overlap the provider's answer instead of delaying the request. Everything else is written at
 * once, and so is anything still queued.
 */
export class SessionRecorder {
  /** Parallel to the agent's messages: the session entry each one was stored as, for compaction's firstKeptEntryId. */
  readonly entryIds: string[];
  /** True during a run: only then may a write wait for the request. */
  inRun = false;
  private readonly pendingWrites: { entry: NewSessionEntry; messageIndex?: number }[] = [];
  private writeFailure: unknown;

  constructor(
    private readonly writer: () => SessionWriter | undefined,
    entryIds: string[],
  ) {
    this.entryIds = entryIds;
  }

  /** `messageIndex`: the message the entry stores, whose entry id is filled in once written. */
  persist(entry: NewSessionEntry, messageIndex?: number, defer = false): void {
    if (!this.writer()) return;
    this.pendingWrites.push({ entry, messageIndex });
    if (!defer || !this.inRun) this.flush();
  }

  /** The request is on its way: write what waited for it. A failure ends the run at its next step. */
  readonly onRequest = (): void => {
    try {
      this.flush();
    } catch (error) {
      this.writeFailure ??= error;
    }
  };

  /** A deferred session write that failed ends the run at its next step rather than going unnoticed. */
  throwWriteFailure(): void {
    if (this.writeFailure === undefined) return;
    const failure = this.writeFailure;
    this.writeFailure = undefined;
    this.pendingWrites.length = 0;
    throw failure;
  }

  /** Writes what {@link persist} queued. */
  flush(): void {
    this.throwWriteFailure();
    while (this.pendingWrites.length > 0) {
      const { entry, messageIndex } = this.pendingWrites.shift()!;
      const written = this.writer()!.append(entry);
      if (messageIndex !== undefined) this.entryIds[messageIndex] = written.id;
    }
  }
}
