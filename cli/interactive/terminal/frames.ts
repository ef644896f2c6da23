import type { Screen } from "./screen.ts";
import type { Terminal } from "./terminal.ts";
import type { Transcript } from "../render/transcript.ts";

/** Frames are at most this often; keystrokes after a quiet spell draw at once. */
const FRAME_MS = 16;
const TICK_MS = 80;
/** A burst of sizes (dragging a window edge) settles for this long before the repaint. */
const RESIZE_SETTLE_MS = 60;

export interface Chrome {
  rows: string[];
  cursor?: { row: number; col: number };
}

/**
 * When and how the session is drawn: the transcript with the chrome (status, editor, overlays)
 * below it, at most once per {@link FRAME_MS}; a full repaint after a resize; and a ticker that
 * animates spinners while anything is in progress.
 */
export class Frames {
  private renderTimer: ReturnType<typeof setTimeout> | undefined;
  private resizeTimer: ReturnType<typeof setTimeout> | undefined;
  private ticker: ReturnType<typeof setInterval> | undefined;
  private lastRender = 0;
  private stopped = false;
  /** Another view has the terminal (/join's guest view): no frames until resumed. */
  private paused = false;

  constructor(
    private readonly terminal: Terminal,
    private readonly screen: Screen,
    private readonly transcript: Transcript,
    /** Everything below the transcript, for a terminal this wide and tall. */
    private readonly chrome: (width: number, height: number) => Chrome,
    /** One spinner step; false once nothing is in progress, which stops the ticker. */
    private readonly tick: () => boolean,
  ) {}

  startTicker(): void {
    if (this.ticker) return;
    this.ticker = setInterval(() => {
      if (!this.tick()) {
        clearInterval(this.ticker);
        this.ticker = undefined;
      }
      this.request();
    }, TICK_MS);
  }

  /** Something changed: the next frame shows it. */
  request(): void {
    if (this.renderTimer || this.stopped) return;
    const wait = Math.max(0, this.lastRender + FRAME_MS - performance.now());
    this.renderTimer = setTimeout(() => {
      this.renderTimer = undefined;
      this.render();
    }, wait);
  }

  /** Draws now, instead of the frame that was requested. */
  renderNow(): void {
    clearTimeout(this.renderTimer);
    this.renderTimer = undefined;
    this.render();
  }

  resized(): void {
    clearTimeout(this.resizeTimer);
    this.resizeTimer = setTimeout(() => {
      this.resizeTimer = undefined;
      this.repaint();
    }, RESIZE_SETTLE_MS);
  }

  render(): void {
    if (this.stopped || this.paused || this.resizeTimer) return;
    this.lastRender = performance.now();
    const width = this.terminal.columns;
    const chrome = this.chrome(width, this.terminal.rows);
    const { commit, live } = this.transcript.frame(width, Math.max(1, this.terminal.rows - chrome.rows.length));
    this.screen.draw({ commit, live: [...live, ...chrome.rows], ...cursorAt(live.length, chrome.cursor) });
  }

  /** Everything again from the top: after a resize, Ctrl+L, or a change of what is expanded. */
  repaint(): void {
    if (this.stopped || this.paused) return;
    this.lastRender = performance.now();
    const width = this.terminal.columns;
    const chrome = this.chrome(width, this.terminal.rows);
    const { history, live } = this.transcript.replay(width, Math.max(1, this.terminal.rows - chrome.rows.length));
    this.screen.reset(history, { commit: [], live: [...live, ...chrome.rows], ...cursorAt(live.length, chrome.cursor) });
  }

  /** A pending resize is dropped: the session is closing. */
  cancelResize(): void {
    clearTimeout(this.resizeTimer);
    this.resizeTimer = undefined;
  }

  pause(): void {
    this.paused = true;
  }

  /** The terminal is back: drawn again below whatever the other view left. */
  resume(): void {
    this.paused = false;
    this.render();
  }

  /** No frame after this one. */
  stop(): void {
    this.stopped = true;
    clearInterval(this.ticker);
    clearTimeout(this.renderTimer);
  }
}

function cursorAt(offset: number, cursor: { row: number; col: number } | undefined): { cursor?: { row: number; col: number } } {
  return cursor ? { cursor: { row: offset + cursor.row, col: cursor.col } } : {};
}
