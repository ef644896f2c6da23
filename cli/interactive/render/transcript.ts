/**
 * The conversation as rendered blocks, and the commit bookkeeping that keeps scrollback
 * append-only: a block's rows go to the terminal for good once they can no longer change, in
 * block order; everything after the first unfinished block stays in the live region.
 */

export interface Block {
  /** Rows at this width. Rows below `stableRows` must never change again. */
  render(width: number): readonly string[];
  /** Leading rows that are final (every row once `done`). */
  stableRows(width: number): number;
  readonly done: boolean;
}

export interface TranscriptFrame {
  commit: string[];
  live: string[];
}

export class Transcript {
  private readonly blocks: Block[] = [];
  /** Blocks before this index have every row committed. */
  private firstLive = 0;
  /** Rows of `blocks[firstLive]` already committed. */
  private committedRows = 0;

  add(block: Block): void {
    this.blocks.push(block);
  }

  /**
   * What to print now and what to keep live. When the live rows outgrow `maxLive`, the oldest
   * rows of the first live block are committed early (a long reply scrolls as it streams);
   * they were the ones about to leave the screen anyway.
   */
  frame(width: number, maxLive: number): TranscriptFrame {
    const commit: string[] = [];
    while (this.firstLive < this.blocks.length) {
      const block = this.blocks[this.firstLive]!;
      const rows = block.render(width);
      const stable = block.done ? rows.length : Math.min(rows.length, block.stableRows(width));
      if (stable > this.committedRows) {
        commit.push(...rows.slice(this.committedRows, stable));
        this.committedRows = stable;
      }
      if (!block.done || this.committedRows < rows.length) break;
      this.firstLive++;
      this.committedRows = 0;
    }
    let live: string[] = [];
    for (let i = this.firstLive; i < this.blocks.length; i++) {
      const rows = this.blocks[i]!.render(width);
      live.push(...(i === this.firstLive ? rows.slice(this.committedRows) : rows));
    }
    if (live.length > maxLive && this.firstLive < this.blocks.length) {
      const firstRows = this.blocks[this.firstLive]!.render(width).length - this.committedRows;
      const early = Math.min(live.length - maxLive, firstRows);
      commit.push(...live.slice(0, early));
      this.committedRows += early;
      live = live.slice(early);
    }
    // Later blocks can only commit after the first one; until then their head waits off screen.
    if (live.length > maxLive) live = live.slice(live.length - maxLive);
    return { commit, live };
  }

  /** Everything not committed yet, finished or not: the last frame before omp exits. */
  flush(width: number): string[] {
    const rows: string[] = [];
    for (let i = this.firstLive; i < this.blocks.length; i++) {
      const blockRows = this.blocks[i]!.render(width);
      rows.push(...(i === this.firstLive ? blockRows.slice(this.committedRows) : blockRows));
    }
    this.firstLive = this.blocks.length;
    this.committedRows = 0;
    return rows;
  }

  /**
   * Every row at `width` from the top, for a full repaint: the commit bookkeeping restarts at the
   * new width, with finished blocks and the stable head of the first live one as history.
   */
  replay(width: number, maxLive: number): { history: string[]; live: string[] } {
    this.firstLive = 0;
    this.committedRows = 0;
    const { commit, live } = this.frame(width, maxLive);
    return { history: commit, live };
  }
}
