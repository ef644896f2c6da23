// The interactive tests' fixture: the provider stand-in in this process, a temp HOME and project,
// and omp in a tmux pane pointed at the stand-in the way a user points it at a real endpoint.
import { afterEach } from "bun:test";
import { mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { tempDir } from "./omp.ts";
import { type Standin, type Turn, startStandin } from "./standin/index.ts";
import { Tty } from "./tty-tmux.ts";

export const MODEL = "anthropic/claude-sonnet-4-5";
/** What the empty editor shows: the prompt is ready for input. */
export const READY = "Ask anything";

export interface SessionOptions {
  script?: Turn[];
  args?: string[];
  files?: Record<string, string>;
  env?: Record<string, string | undefined>;
  cols?: number;
  rows?: number;
  /** Reuse a HOME (and so its sessions and history) from an earlier session. */
  home?: string;
  cwd?: string;
  redirect?: string;
  /** omp is typed at an interactive bash, for job control. */
  shell?: boolean;
}

export interface InteractiveSession {
  tty: Tty;
  standin: Standin;
  home: string;
  cwd: string;
  /** The newest session file's entries. */
  sessionEntries(): any[];
  close(): Promise<void>;
}

export async function startInteractive(options: SessionOptions = {}): Promise<InteractiveSession> {
  const standin = await startStandin({ script: options.script ?? [] });
  const home = options.home ?? tempDir("omp-tty-home-");
  const cwd = options.cwd ?? tempDir("omp-tty-project-");
  for (const [path, content] of Object.entries(options.files ?? {})) {
    mkdirSync(dirname(join(cwd, path)), { recursive: true });
    writeFileSync(join(cwd, path), content);
  }
  const tty = Tty.start({
    home,
    cwd,
    cols: options.cols,
    rows: options.rows,
    redirect: options.redirect,
    shell: options.shell,
    args: ["--model", MODEL, ...(options.args ?? [])],
    env: {
      ANTHROPIC_BASE_URL: standin.url,
      ANTHROPIC_API_KEY: "sk-ant-test-key-0123456789",
      OMP_RETRY_BASE_MS: "20",
      OMP_NO_UPDATE_CHECK: "1",
      ...options.env,
    },
  });
  return {
    tty,
    standin,
    home,
    cwd,
    sessionEntries: () => readSessionEntries(home),
    async close() {
      tty.kill();
      await standin.close();
    },
  };
}

/** Every `.jsonl` under the agent dir's sessions, newest first. */
export function sessionFiles(home: string): string[] {
  const root = join(home, ".omp", "agent", "sessions");
  const files: string[] = [];
  const walk = (dir: string) => {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return;
    }
    for (const name of names) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith(".jsonl")) files.push(path);
    }
  };
  walk(root);
  return files.sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
}

export function readSessionEntries(home: string): any[] {
  const newest = sessionFiles(home)[0];
  if (!newest) return [];
  return readFileSync(newest, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line));
}

/** The messages of a session file, by role and text, for compact assertions. */
export function messagesOf(entries: any[]): { role: string; text: string; stopReason?: string }[] {
  return entries
    .filter((e) => e.type === "message")
    .map((e) => {
      const m = e.message;
      const text = typeof m.content === "string" ? m.content : m.content.map((c: any) => c.text ?? c.thinking ?? (c.type === "toolCall" ? `[${c.name}]` : "")).join("");
      return { role: m.role, text, ...(m.stopReason ? { stopReason: m.stopReason } : {}) };
    });
}

/** Types a prompt and waits for the answer's text. */
export async function exchange(s: InteractiveSession, prompt: string, answer: string): Promise<void> {
  s.tty.type(prompt);
  s.tty.press("Enter");
  await s.tty.waitFor(answer);
  await s.tty.waitFor((screen) => !screen.includes("esc to interrupt"));
}

/** Polls `check` until it returns a value other than undefined (bounded); for files omp writes. */
export async function eventually<T>(check: () => T | undefined, what: string, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await Bun.sleep(25);
  }
}

/** The session's messages once there are `count` of them. */
export function messagesWhen(session: InteractiveSession, count: number): Promise<ReturnType<typeof messagesOf>> {
  return eventually(() => {
    const messages = messagesOf(session.sessionEntries());
    return messages.length >= count ? messages : undefined;
  }, `${count} messages in the session file`);
}

/**
 * For a test file: `start` starts omp, `ready` also waits until its prompt is up; the session a
 * test started is closed after it.
 */
export function testSessions(): { start(options?: SessionOptions): Promise<InteractiveSession>; ready(options?: SessionOptions): Promise<InteractiveSession> } {
  let current: InteractiveSession | undefined;
  afterEach(async () => {
    await current?.close();
    current = undefined;
  });
  const start = async (options: SessionOptions = {}) => (current = await startInteractive(options));
  return {
    start,
    async ready(options = {}) {
      const session = await start(options);
      await session.tty.waitFor(READY);
      return session;
    },
  };
}

/** testSessions' `ready`, for files that only need sessions with their prompt up. */
export function readySessions(): (options?: SessionOptions) => Promise<InteractiveSession> {
  return testSessions().ready;
}
