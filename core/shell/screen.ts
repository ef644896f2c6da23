import type { Terminal } from "@xterm/headless";
import type { PtySize } from "./spawn.ts";

/** A PTY job's terminal as a person would see it: the escape codes drawn, not shown. */
export interface Screen {
  write(bytes: Uint8Array): void;
  /** The visible rows once everything written so far is drawn, trailing blank rows dropped. */
  text(): Promise<string>;
  /** The program asked for application cursor keys (vim, less): arrows are sent as ESC O A, not ESC [ A. */
  applicationCursor(): boolean;
}

/** Loaded on the first PTY job only: the emulator is a large module the start-up path never needs. */
export async function createScreen(size: PtySize): Promise<Screen> {
  const { Terminal: TerminalClass } = (await import("@xterm/headless")) as unknown as { Terminal: typeof Terminal };
  const terminal = new TerminalClass({ cols: size.cols, rows: size.rows, scrollback: 0, allowProposedApi: true });
  return {
    write: (bytes) => terminal.write(bytes),
    applicationCursor: () => terminal.modes.applicationCursorKeysMode,
    text: () =>
      new Promise((resolve) => {
        // The emulator parses asynchronously; an empty write's callback runs after everything before it.
        terminal.write("", () => {
          const buffer = terminal.buffer.active;
          const rows: string[] = [];
          for (let y = 0; y < terminal.rows; y++) rows.push(buffer.getLine(buffer.viewportY + y)?.translateToString(true) ?? "");
          while (rows.length > 0 && rows[rows.length - 1] === "") rows.pop();
          resolve(rows.join("\n"));
        });
      }),
  };
}
