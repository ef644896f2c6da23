/**
 * Whether `fd` is a terminal. Asked through Bun's tty_wrap binding because importing node:tty loads
 * Node's stream machinery, about 6 ms of start-up in a compiled binary; node:tty answers only if
 * the binding is missing or fails.
 */
export function isTerminal(fd: number): boolean {
  try {
    return (process.binding("tty_wrap") as { isTTY(fd: number): boolean }).isTTY(fd);
  } catch {
    return (require("node:tty") as typeof import("node:tty")).isatty(fd);
  }
}
