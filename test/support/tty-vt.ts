// A small terminal emulator for the renderer's unit tests: just the sequences the interactive
// mode writes (cursor moves, erases, scrolling, autowrap on/off), with a scrollback that rows
// enter when they scroll off the top, the way a real terminal's does.

export class VirtualTerminal {
  readonly history: string[] = [];
  private grid: string[][];
  row = 0;
  col = 0;
  private autowrap = true;
  /** The cursor sits past the last column: the next character wraps (autowrap on). */
  private pendingWrap = false;

  constructor(
    readonly columns: number,
    readonly rows: number,
  ) {
    this.grid = Array.from({ length: rows }, () => this.blank());
  }

  private blank(): string[] {
    return Array.from({ length: this.columns }, () => " ");
  }

  /** Screen rows, trailing spaces trimmed. */
  screen(): string[] {
    return this.grid.map((cells) => cells.join("").replace(/ +$/, ""));
  }

  /** Scrollback then screen, trailing blank rows dropped. */
  tape(): string[] {
    const all = [...this.history, ...this.screen()];
    while (all.length > 0 && all[all.length - 1] === "") all.pop();
    return all;
  }

  write(data: string): void {
    let i = 0;
    while (i < data.length) {
      const ch = data[i]!;
      if (ch === "\x1b") {
        i = this.escape(data, i);
        continue;
      }
      if (ch === "\r") {
        this.col = 0;
        this.pendingWrap = false;
      } else if (ch === "\n") {
        this.lineFeed();
      } else {
        const code = data.codePointAt(i)!;
        const char = String.fromCodePoint(code);
        this.print(char);
        i += char.length;
        continue;
      }
      i++;
    }
  }

  private lineFeed(): void {
    this.pendingWrap = false;
    if (this.row === this.rows - 1) {
      this.history.push(this.grid.shift()!.join("").replace(/ +$/, ""));
      this.grid.push(this.blank());
    } else this.row++;
  }

  private print(char: string): void {
    const width = Math.max(1, Bun.stringWidth(char));
    if (this.pendingWrap) {
      this.col = 0;
      this.lineFeed();
    }
    if (this.col + width > this.columns) {
      if (!this.autowrap) this.col = this.columns - width;
      else {
        this.col = 0;
        this.lineFeed();
      }
    }
    this.grid[this.row]![this.col] = char;
    for (let k = 1; k < width; k++) this.grid[this.row]![this.col + k] = "";
    this.col += width;
    if (this.col >= this.columns) {
      if (this.autowrap) this.pendingWrap = true;
      this.col = this.columns - 1;
    }
  }

  private escape(data: string, start: number): number {
    const next = data[start + 1];
    if (next === "]") {
      const bel = data.indexOf("\x07", start);
      const st = data.indexOf("\x1b\\", start);
      const ends = [bel === -1 ? Infinity : bel + 1, st === -1 ? Infinity : st + 2];
      return Math.min(...ends);
    }
    if (next !== "[") return start + 2;
    let i = start + 2;
    while (i < data.length && /[0-?]/.test(data[i]!)) i++;
    const params = data.slice(start + 2, i);
    const final = data[i]!;
    const n = Number(params.split(";")[0] || "0");
    this.pendingWrap = false;
    switch (final) {
      case "A":
        this.row = Math.max(0, this.row - Math.max(1, n));
        break;
      case "B":
        this.row = Math.min(this.rows - 1, this.row + Math.max(1, n));
        break;
      case "C":
        this.col = Math.min(this.columns - 1, this.col + Math.max(1, n));
        break;
      case "H":
        this.row = 0;
        this.col = 0;
        break;
      case "K":
        if (n === 2) this.grid[this.row] = this.blank();
        else for (let c = this.col; c < this.columns; c++) this.grid[this.row]![c] = " ";
        break;
      case "J":
        if (n === 3) this.history.length = 0;
        else if (n === 2) this.grid = Array.from({ length: this.rows }, () => this.blank());
        else {
          for (let c = this.col; c < this.columns; c++) this.grid[this.row]![c] = " ";
          for (let r = this.row + 1; r < this.rows; r++) this.grid[r] = this.blank();
        }
        break;
      case "h":
      case "l":
        if (params === "?7") this.autowrap = final === "h";
        break;
    }
    return i + 1;
  }
}
