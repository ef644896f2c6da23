import { writeSync } from "node:fs";
import { type InputEvent, InputReader } from "./keys.ts";
import { parseOscColor } from "../render/theme.ts";
import { type TtyDriver, openTty } from "./tty-driver.ts";

/** What the terminal told us about itself at start-up. */
export interface TerminalInfo {
  /** The background colour (0..1 channels) from OSC 11, when the terminal answers it. */
  background?: [number, number, number];
  /** The Kitty keyboard protocol is on: Shift+Enter, Ctrl+I vs Tab and friends are distinguishable. */
  kitty: boolean;
}

/** How long a lone ESC waits for the rest of a sequence before it counts as the Escape key. */
const ESCAPE_WAIT_MS = 40;
/** Terminals answer DA1 at once; one that does not get this long before we draw anyway. */
const PROBE_TIMEOUT_MS = 250;

/**
 * The TTY: raw mode, bracketed paste, the keyboard protocol, capability probes, size and
 * synchronous writes. Everything is undone by `stop`, also when omp leaves through an error.
 */
export class Terminal {
  private readonly reader = new InputReader();
  private escapeTimer: ReturnType<typeof setTimeout> | undefined;
  private onEvent: (event: InputEvent) => void = () => {};
  private onReply: ((data: string) => void) | undefined;
  private kitty = false;
  private gone = false;
  private started = false;

  constructor(
    private readonly tty: TtyDriver = openTty(),
    private readonly outputFd = 1,
  ) {}

  get columns(): number {
    return Math.max(20, this.tty.columns);
  }

  get rows(): number {
    return Math.max(6, this.tty.rows);
  }

  /** Raw mode and probes; resolves once the terminal has answered (or failed to in time). */
  async start(onEvent: (event: InputEvent) => void): Promise<TerminalInfo> {
    this.onEvent = onEvent;
    this.tty.open((data) => this.receive(data));
    this.started = true;

    const info: TerminalInfo = { kitty: false };
    let kittyReply = false;
    const answered = new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, PROBE_TIMEOUT_MS);
      this.onReply = (data) => {
        if (data.startsWith("\x1b]11;")) {
          info.background = parseOscColor(data.slice(5).replace(/(\x07|\x1b\\)$/, ""));
        } else if (/^\x1b\[\?\d*u$/.test(data)) {
          kittyReply = true;
        } else if (/^\x1b\[\?[\d;]*c$/.test(data)) {
          // DA1 comes last: every terminal answers it, so whatever was not answered before it will not be.
          clearTimeout(timer);
          resolve();
        }
      };
    });
    // Bracketed paste; then the background colour, the Kitty keyboard flags, and DA1 as the sentinel.
    this.write("\x1b[?2004h\x1b]11;?\x1b\\\x1b[?u\x1b[c");
    await answered;
    this.onReply = undefined;
    this.kitty = kittyReply;
    this.write(this.keyboardOn());
    info.kitty = this.kitty;
    return info;
  }

  onResize(listener: () => void): () => void {
    return this.tty.onResize(listener);
  }

  /**
   * Writes everything before returning: a frame is never interleaved with the next one, and what
   * was drawn is on the terminal when omp exits. A slow terminal holds omp back instead of
   * letting frames pile up in memory.
   */
  write(data: string): void {
    if (this.gone) return;
    const bytes = Buffer.from(data);
    let offset = 0;
    while (offset < bytes.length) {
      try {
        offset += writeSync(this.outputFd, bytes, offset);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EAGAIN") {
          // The terminal hung up (EIO, EPIPE): nothing can be shown any more; omp is told through SIGHUP.
          this.gone = true;
          return;
        }
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 2);
      }
    }
  }

  /** Leaves the terminal as omp found it. Safe to call twice. */
  stop(): void {
    if (!this.started) return;
    this.started = false;
    clearTimeout(this.escapeTimer);
    this.write(this.modesOff());
    this.tty.close();
  }

  /**
   * Ctrl+Z: hands the terminal back as omp found it and stops omp's whole job, as a shell's job
   * control expects (a wrapper such as `timeout` or a launcher script stops with it). Returns once
   * `fg` has continued omp, with the terminal set up again. Not on Windows, which has no job control.
   */
  suspend(): boolean {
    if (!this.started || process.platform === "win32") return false;
    clearTimeout(this.escapeTimer);
    this.write(this.modesOff());
    this.tty.pause();
    // Raw mode turned Ctrl+Z into a byte, so the stop the terminal would have sent is sent here.
    process.kill(0, "SIGTSTP");
    this.tty.resume();
    this.write(this.modesOn());
    return true;
  }

  /**
   * The keyboard protocol the probe found: Kitty's flag 1 (disambiguate: modified keys arrive as
   * CSI u, Escape needs no timeout), else xterm's modifyOtherKeys level 1 (Shift+Enter and
   * Ctrl+Enter get their own sequences).
   */
  private keyboardOn(): string {
    return this.kitty ? "\x1b[>1u" : "\x1b[>4;1m";
  }

  /** Bracketed paste and the keyboard protocol, as after start-up. */
  private modesOn(): string {
    return `\x1b[?2004h${this.keyboardOn()}`;
  }

  private modesOff(): string {
    return `${this.kitty ? "\x1b[<u" : "\x1b[>4;0m"}\x1b[?2004l\x1b[?25h`;
  }

  private receive(data: string): void {
    clearTimeout(this.escapeTimer);
    this.dispatch(this.reader.feed(data));
    if (this.reader.pending) {
      this.escapeTimer = setTimeout(() => this.dispatch(this.reader.flush()), ESCAPE_WAIT_MS);
    }
  }

  private dispatch(events: InputEvent[]): void {
    for (const event of events) {
      if (event.type === "reply") this.onReply?.(event.data);
      else this.onEvent(event);
    }
  }
}
