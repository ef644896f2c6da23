// A real terminal for the interactive tests: omp runs in a detached tmux session on a private
// socket, keys go in with send-keys, and the screen comes back with capture-pane.
import { join } from "node:path";
import { OMP, cleanEnv, tempDir } from "./omp.ts";

export interface TtyOptions {
  home: string;
  cwd: string;
  args?: string[];
  env?: Record<string, string | undefined>;
  cols?: number;
  rows?: number;
  binary?: string;
  /** Shell text after the command, e.g. `| cat` to give omp a pipe for stdout. */
  redirect?: string;
  /** Typed at an interactive bash (job control: Ctrl+Z, fg) instead of being the pane's command. */
  shell?: boolean;
}

const POLL_MS = 25;
const DEFAULT_TIMEOUT_MS = 10_000;

function tmux(socket: string, args: string[]): string {
  const result = Bun.spawnSync(["tmux", "-S", socket, ...args], { stdout: "pipe", stderr: "pipe" });
  if (result.exitCode !== 0) throw new Error(`tmux ${args.join(" ")}: ${result.stderr.toString().trim()}`);
  return result.stdout.toString();
}

const quote = (value: string) => `'${value.replaceAll("'", `'\\''`)}'`;

/** omp running in a tmux pane. */
export class Tty {
  private constructor(
    private readonly socket: string,
    readonly exitFile: string,
  ) {}

  static start(options: TtyOptions): Tty {
    const dir = tempDir("omp-tty-");
    const socket = join(dir, "tmux.sock");
    const exitFile = join(dir, "exit-code");
    const env = cleanEnv(options.home, { TERM: "xterm-256color", ...options.env });
    // Bounded, so a test run that dies before its cleanup leaves no omp or tmux behind for long.
    const command = [
      "timeout",
      // In the terminal's foreground process group, or omp could not read the TTY.
      "--foreground",
      "300",
      "env",
      "-i",
      ...Object.entries(env).map(([key, value]) => quote(`${key}=${value}`)),
      quote(options.binary ?? OMP),
      ...(options.args ?? []).map(quote),
      options.redirect ?? "",
    ].join(" ");
    // The pane stays open a while after omp exits, so its last screen and exit code can still be read.
    const script = `${command}; echo $? > ${quote(exitFile)}; sleep 120`;
    const size = ["-x", String(options.cols ?? 80), "-y", String(options.rows ?? 24)];
    if (options.shell) {
      const shellEnv = Object.entries({ PATH: env.PATH, HOME: options.home, TERM: "xterm-256color", PS1: "$ " }).map(([key, value]) => quote(`${key}=${value}`));
      tmux(socket, ["-f", "/dev/null", "new-session", "-d", ...size, "-c", options.cwd, `env -i ${shellEnv.join(" ")} bash --norc --noprofile -i`]);
      tmux(socket, ["set-option", "-g", "history-limit", "20000"]);
      tmux(socket, ["send-keys", "-l", `${command}; echo $? > ${quote(exitFile)}`]);
      tmux(socket, ["send-keys", "Enter"]);
      return new Tty(socket, exitFile);
    }
    tmux(socket, ["-f", "/dev/null", "new-session", "-d", ...size, "-c", options.cwd, script]);
    tmux(socket, ["set-option", "-g", "history-limit", "20000"]);
    tmux(socket, ["set-option", "-g", "set-clipboard", "on"]);
    return new Tty(socket, exitFile);
  }

  /** The visible screen, one string per row, trailing spaces trimmed. */
  screen(): string {
    return tmux(this.socket, ["capture-pane", "-p"]);
  }

  /** Scrollback and screen together. */
  history(): string {
    return tmux(this.socket, ["capture-pane", "-p", "-S", "-"]);
  }

  /** The screen with escape sequences, to check colours. */
  styledScreen(): string {
    return tmux(this.socket, ["capture-pane", "-p", "-e"]);
  }

  /** The pane's title, as OSC 0/2 sequences written to the terminal set it. */
  title(): string {
    return tmux(this.socket, ["display-message", "-p", "#{pane_title}"]).trim();
  }

  /** tmux's paste buffers, which OSC 52 clipboard writes fill (set-clipboard is on for these panes). */
  clipboard(): string {
    return tmux(this.socket, ["list-buffers", "-F", "#{buffer_sample}"]).trim();
  }

  /** Literal text, as typed. */
  type(text: string): void {
    tmux(this.socket, ["send-keys", "-l", text]);
  }

  /** tmux key names: Enter, Escape, C-c, M-Enter, Up, BSpace, Tab. */
  press(...keys: string[]): void {
    tmux(this.socket, ["send-keys", ...keys]);
  }

  /** Raw bytes to the pane's input (sequences tmux has no key name for). */
  sendRaw(bytes: string): void {
    tmux(this.socket, ["send-keys", "-H", ...Array.from(Buffer.from(bytes), (b) => b.toString(16).padStart(2, "0"))]);
  }

  /** A bracketed paste, as a terminal sends it when the user pastes. */
  paste(text: string): void {
    tmux(this.socket, ["set-buffer", "--", text]);
    tmux(this.socket, ["paste-buffer", "-p", "-d"]);
  }

  resize(cols: number, rows: number): void {
    tmux(this.socket, ["resize-window", "-x", String(cols), "-y", String(rows)]);
  }

  set(option: string, value: string): void {
    tmux(this.socket, ["set-option", "-s", option, value]);
  }

  /** Appends every byte omp writes to the terminal from now on to `file`; `record()` stops. */
  record(file?: string): void {
    tmux(this.socket, ["pipe-pane", ...(file ? ["-O", `cat >> ${quote(file)}`] : [])]);
  }

  /** The most recent tmux paste buffer (where OSC 52 lands with set-clipboard on). */
  buffer(): string {
    return tmux(this.socket, ["show-buffer"]);
  }

  /** Waits until the screen satisfies `expected`; throws with the last screen after the timeout. */
  async waitFor(expected: string | RegExp | ((screen: string) => boolean), timeoutMs = DEFAULT_TIMEOUT_MS, source: () => string = () => this.screen()): Promise<string> {
    const test = typeof expected === "function" ? expected : (s: string) => (typeof expected === "string" ? s.includes(expected) : expected.test(s));
    const deadline = Date.now() + timeoutMs;
    let last = "";
    for (;;) {
      last = source();
      if (test(last)) return last;
      if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${String(expected)}; the screen was:\n${last}`);
      await Bun.sleep(POLL_MS);
    }
  }

  /** omp's exit status once it has exited. */
  async exitCode(timeoutMs = DEFAULT_TIMEOUT_MS): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const file = Bun.file(this.exitFile);
      if (await file.exists()) {
        const text = (await file.text()).trim();
        if (text !== "") return Number(text);
      }
      if (Date.now() > deadline) throw new Error(`omp did not exit within ${timeoutMs} ms; the screen was:\n${this.screen()}`);
      await Bun.sleep(POLL_MS);
    }
  }

  /** The omp process id (for CPU measurements). */
  panePid(): number {
    return Number(tmux(this.socket, ["display-message", "-p", "#{pane_pid}"]).trim());
  }

  kill(): void {
    try {
      tmux(this.socket, ["kill-server"]);
    } catch {
      // Already gone.
    }
  }
}
