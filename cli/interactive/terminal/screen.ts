import { truncateLine } from "../render/text.ts";

/** One frame of the interactive mode. */
export interface Frame {
  /** Rows that are final: printed once above the live region, after which the terminal owns them (scrollback). */
  commit: readonly string[];
  /** The bottom of the screen that is redrawn: streaming reply, running tools, status line, editor. At most the screen height. */
  live: readonly string[];
  /** Where the hardware cursor goes (a row of `live`, a column); hidden when absent. */
  cursor?: { row: number; col: number };
}

export interface Output {
  write(data: string): void;
  readonly columns: number;
  readonly rows: number;
}

const BEGIN = "\x1b[?2026h\x1b[?25l\x1b[?7l";
const END = "\x1b[?7h\x1b[?2026l";

/**
 * The append-only renderer. The terminal's scrollback is never rewritten: committed rows are
 * printed once and scroll away naturally, and only the live region at the bottom is redrawn, row
 * by row where it changed, with relative cursor moves from its top. Each frame is one write
 * inside synchronized output (DEC 2026), with autowrap off so a mismeasured row is clipped by the
 * terminal instead of wrapping and shifting everything below it.
 */
export class Screen {
  /** The live rows as they are on the terminal now. */
  private shown: string[] = [];
  /** The cursor's row, counted from the top of the live region. */
  private cursorRow = 0;
  private cursorCol = 0;
  private cursorVisible = false;

  constructor(private readonly out: Output) {}

  private fit(rows: readonly string[]): string[] {
    const width = this.out.columns;
    return rows.map((row) => truncateLine(row, width));
  }

  draw(frame: Frame): void {
    const live = this.fit(frame.live.slice(-this.out.rows));
    const commit = this.fit(frame.commit);
    const cursor = frame.cursor;
    if (commit.length === 0 && sameRows(live, this.shown) && this.cursorMatches(cursor)) return;

    let out = BEGIN + "\r" + up(this.cursorRow);
    let row = 0;
    if (commit.length > 0) {
      // Committed rows take the live region's place and push it down; the live region is
      // rewritten below them. Rows that scroll off the top are committed ones, by construction.
      const rows = [...commit, ...live];
      rows.forEach((text, i) => (out += (i > 0 ? "\r\n" : "") + "\x1b[2K" + text));
      out += eraseRows(this.shown.length - rows.length);
      if (live.length === 0) out += "\r\n";
      row = Math.max(0, live.length - 1);
    } else {
      for (let i = 0; i < live.length; i++) {
        if (i < this.shown.length) {
          if (live[i] === this.shown[i]) continue;
          out += down(i - row) + "\r\x1b[2K" + live[i];
        } else if (i === 0) {
          out += "\r\x1b[2K" + live[i];
        } else {
          out += down(i - 1 - row) + "\r\n\x1b[2K" + live[i];
        }
        row = i;
      }
      if (live.length < this.shown.length) {
        // Rows the live region gave up are blanked; the screen below them stays empty.
        const last = Math.max(0, live.length - 1);
        out += last > row ? down(last - row) : up(row - last);
        row = last;
        if (live.length === 0) out += "\r\x1b[2K" + eraseRows(this.shown.length - 1);
        else out += eraseRows(this.shown.length - live.length);
      }
    }
    this.shown = live;
    out += this.park(row, cursor, live.length);
    this.out.write(out + END);
  }

  /**
   * Clears the screen and its scrollback and prints `history` and the live region again: after a
   * resize (the old rows were wrapped for another width) or a change of what is expanded. Only
   * ever on such a user gesture, never while content merely streams.
   */
  reset(history: readonly string[], frame: Frame): void {
    const live = this.fit(frame.live.slice(-this.out.rows));
    const rows = [...this.fit(history), ...live];
    let out = BEGIN + "\x1b[2J\x1b[H\x1b[3J";
    rows.forEach((text, i) => (out += (i > 0 ? "\r\n" : "") + text));
    this.shown = live;
    out += this.park(Math.max(0, live.length - 1), frame.cursor, live.length);
    this.out.write(out + END);
  }

  /** Leaves the cursor on a fresh line below everything, for the shell. */
  leave(commit: readonly string[]): void {
    this.draw({ commit, live: [] });
    this.out.write("\x1b[?25h");
  }

  private cursorMatches(cursor: Frame["cursor"]): boolean {
    if (!cursor) return !this.cursorVisible && this.cursorRow === Math.max(0, this.shown.length - 1);
    return this.cursorVisible && cursor.row === this.cursorRow && cursor.col === this.cursorCol;
  }

  /** Moves from `row` to the cursor position (or the last live row) and shows the cursor if wanted. */
  private park(row: number, cursor: Frame["cursor"], liveRows: number): string {
    const target = cursor ? Math.min(cursor.row, Math.max(0, liveRows - 1)) : Math.max(0, liveRows - 1);
    const col = cursor?.col ?? 0;
    let out = target > row ? down(target - row) : up(row - target);
    out += "\r" + (col > 0 ? `\x1b[${col}C` : "");
    if (cursor) out += "\x1b[?25h";
    this.cursorRow = target;
    this.cursorCol = col;
    this.cursorVisible = cursor !== undefined;
    return out;
  }
}

/**
 * Blanks the `n` rows below the cursor's and comes back. Row by row on purpose: an erase-below
 * from the top-left corner makes tmux (scroll-on-clear) push the whole screen into its history.
 */
function eraseRows(n: number): string {
  if (n <= 0) return "";
  return "\x1b[1B\r\x1b[2K".repeat(n) + up(n);
}

function up(n: number): string {
  return n > 0 ? `\x1b[${n}A` : "";
}

function down(n: number): string {
  return n > 0 ? `\x1b[${n}B` : "";
}

function sameRows(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
