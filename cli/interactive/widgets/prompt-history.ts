import { describeError } from "../../../core/errors/omp-error.ts";
import type { HistoryStore } from "../../../core/history/store.ts";

/**
 * The prompts the user sent, across sessions, for Up and Ctrl+R. History is a convenience: a
 * read-only or broken home dir warns once and leaves the session without it.
 */
export class PromptHistory {
  /** null: it could not be opened. */
  private store: HistoryStore | null | undefined;

  constructor(
    private readonly env: NodeJS.ProcessEnv,
    private readonly warn: (text: string) => void,
  ) {}

  recent(limit: number): string[] {
    return this.open()?.recent(limit) ?? [];
  }

  search(query: string, limit: number): string[] {
    return this.open()?.search(query, limit) ?? [];
  }

  remember(text: string, cwd: string): void {
    try {
      this.open()?.add(text, cwd);
    } catch (error) {
      this.warn(`Could not save the prompt to history: ${describeError(error)}`);
    }
  }

  close(): void {
    this.store?.close();
  }

  private open(): HistoryStore | undefined {
    if (this.store === undefined) {
      try {
        // Opened on first use (Up, Ctrl+R, the first prompt): bun:sqlite is not worth loading before the first frame.
        const { HistoryStore, historyDbPath } = require("../../../core/history/store.ts") as typeof import("../../../core/history/store.ts");
        this.store = HistoryStore.open(historyDbPath(this.env));
      } catch (error) {
        this.store = null;
        this.warn(`Prompt history is unavailable: ${describeError(error)}`);
      }
    }
    return this.store ?? undefined;
  }
}
