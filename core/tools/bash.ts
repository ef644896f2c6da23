import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { z } from "zod";
import { createNumberedLog, OutputCollector } from "./bash-output.ts";
import { errorResult, textResult } from "./format.ts";
import { displayPath, resolveToolPath } from "./paths.ts";
import type { ToolContext, ToolDefinition, ToolResult } from "./types.ts";
import { killGroup } from "./process-group.ts";
import { looksRefused, refusedNote } from "../sandbox/denial.ts";
import { sandboxCommand } from "../sandbox/wrap.ts";

export const BASH_DEFAULT_TIMEOUT_S = 120;
export const BASH_MAX_TIMEOUT_S = 3600;
/** Time between SIGTERM and SIGKILL: long enough to flush and clean up, short enough not to stall the turn. */
export const BASH_KILL_GRACE_MS = 2000;
/**
 * How long to keep reading after bash exits. Background jobs it left running hold the output
 * pipe open; they must not keep the call waiting.
 */
const AFTER_EXIT_READ_MS = 300;

/**
 * Makes tools that would page, prompt or colour behave as in CI: nobody can answer a prompt or
 * scroll a pager, and escape codes waste the model's context.
 */
export const NON_INTERACTIVE_ENV: Record<string, string> = {
  OMP: "1",
  PAGER: "cat",
  GIT_PAGER: "cat",
  MANPAGER: "cat",
  SYSTEMD_PAGER: "",
  GIT_TERMINAL_PROMPT: "0",
  GIT_EDITOR: "true",
  EDITOR: "true",
  VISUAL: "true",
  TERM: "dumb",
  NO_COLOR: "1",
  DEBIAN_FRONTEND: "noninteractive",
};

const schema = z.object({
  command: z.string().describe("Bash command line to run; may use pipes, &&, redirections and multiple lines"),
  timeout: z
    .number()
    .min(1)
    .max(BASH_MAX_TIMEOUT_S)
    .optional()
    .describe(`Seconds before the command and everything it started are killed (default ${BASH_DEFAULT_TIMEOUT_S}, max ${BASH_MAX_TIMEOUT_S})`),
  cwd: z.string().optional().describe("Directory to run in, relative to the working directory or absolute (default: the working directory)"),
});

export interface BashDetails {
  command: string;
  cwd: string;
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  aborted: boolean;
  durationMs: number;
  totalBytes: number;
  totalLines: number;
  truncated: boolean;
  logPath?: string;
}

export const bashTool: ToolDefinition<typeof schema> = {
  name: "bash",
  description: [
    "Run a command with bash -c in the working directory (or cwd) and return its output, stdout and stderr merged in order.",
    `Each call is a fresh shell: cd and variables do not carry over, so chain with && or pass cwd. There is no stdin and no terminal: interactive programs get no input, so use non-interactive flags (git --no-edit, apt-get -y, npm init -y).`,
    `The command is killed with everything it started after timeout seconds (default ${BASH_DEFAULT_TIMEOUT_S}). Long output keeps its first 200 and last 400 lines; the complete output is saved to a log file whose path is given, which you can read or grep.`,
    "A non-zero exit status makes the call an error; its output is still shown.",
    "Commands run sandboxed: writes only in the project and temp dirs, no network, credential files unreadable. A refusal says so; the user may then allow a rerun outside.",
    "For a server or watcher that must keep running, start it in the background with its output redirected (nohup cmd > /tmp/cmd.log 2>&1 &) and check the log later.",
    "Use the read, grep, find, edit and write tools instead of cat, grep, find, sed -i or echo > for files.",
  ].join(" "),
  schema,
  effect: "exec",
  execute(input, context) {
    return runBash(input, context);
  },
};

/**
 * True while a live process is in the group. Where /proc exists it is read directly, because
 * kill(-pgid, 0) also counts zombies, which containers whose init never reaps keep forever.
 */
function groupAlive(pgid: number): boolean {
  if (existsSync("/proc/self/stat")) {
    for (const entry of readdirSync("/proc")) {
      if (!/^\d+$/.test(entry)) continue;
      let stat: string;
      try {
        stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      } catch {
        continue;
      }
      // Fields after the parenthesised command name: state ppid pgrp ...
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(pgrp) === pgid && state !== "Z" && state !== "X") return true;
    }
    return false;
  }
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

const sleep = (ms: number) => new Promise<"slept">((resolve) => setTimeout(() => resolve("slept"), ms));

async function runBash(input: z.infer<typeof schema>, context: ToolContext): Promise<ToolResult> {
  const cwd = resolveToolPath(context.cwd, input.cwd);
  let isDir = false;
  try {
    isDir = statSync(cwd).isDirectory();
  } catch {
    return errorResult(`Working directory does not exist: ${displayPath(context.cwd, cwd)}`);
  }
  if (!isDir) return errorResult(`Working directory is not a directory: ${displayPath(context.cwd, cwd)}`);
  if (context.signal.aborted) return errorResult("Command not run: the call was aborted before it started.");

  const timeoutS = input.timeout ?? context.bashTimeoutSeconds ?? BASH_DEFAULT_TIMEOUT_S;
  const started = performance.now();
  const output = new OutputCollector(() => createNumberedLog(context.artifactsDir, "bash"), undefined, context.redact);
  // stderr joins stdout inside the shell so the two arrive interleaved exactly as written.
  // --- sandbox (issue 21): confined by the policy, without omp's secrets in its environment ---
  const spawn = sandboxCommand(["bash", "-c", `exec 2>&1\n${input.command}`], { policy: context.sandbox, env: { ...process.env, ...NON_INTERACTIVE_ENV }, secrets: context.secrets ?? [] });
  const proc = Bun.spawn(spawn.argv, {
    cwd,
    env: spawn.env,
    stdin: "ignore",
    stdout: "pipe",
    stderr: "ignore",
    // Its own process group, so a timeout can kill everything the command started.
    detached: true,
  });

  let stopReason: "timeout" | "abort" | undefined;
  let killDeadline = 0;
  let killTimer: ReturnType<typeof setTimeout> | undefined;
  const stop = (reason: "timeout" | "abort") => {
    if (stopReason) return;
    stopReason = reason;
    killGroup(proc.pid, "SIGTERM");
    killDeadline = Date.now() + BASH_KILL_GRACE_MS;
    // Bash itself may ignore SIGTERM (trap '' TERM), in which case it never exits on its own.
    killTimer = setTimeout(() => killGroup(proc.pid, "SIGKILL"), BASH_KILL_GRACE_MS);
  };
  const timer = setTimeout(() => stop("timeout"), timeoutS * 1000);
  const onAbort = () => stop("abort");
  context.signal.addEventListener("abort", onAbort, { once: true });

  const reader = proc.stdout.getReader();
  const pump = (async () => {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      const text = output.push(value);
      if (text) context.onUpdate?.(text);
    }
  })();

  let detachedOutput = false;
  try {
    await proc.exited;
  } finally {
    clearTimeout(timer);
    context.signal.removeEventListener("abort", onAbort);
  }
  if (stopReason) {
    // Children may outlive bash after SIGTERM: they get what is left of the grace period, then SIGKILL.
    while (groupAlive(proc.pid) && Date.now() < killDeadline) await sleep(50);
    clearTimeout(killTimer);
    killGroup(proc.pid, "SIGKILL");
  }
  if ((await Promise.race([pump, sleep(AFTER_EXIT_READ_MS)])) === "slept") {
    // Background jobs left running, or something that escaped the group with setsid, still hold the pipe.
    detachedOutput = true;
    await reader.cancel();
    await pump;
  }

  const collected = output.finish();
  const details: BashDetails = {
    command: input.command,
    cwd,
    exitCode: proc.exitCode,
    signal: proc.signalCode === null ? null : String(proc.signalCode),
    timedOut: stopReason === "timeout",
    aborted: stopReason === "abort",
    durationMs: Math.round(performance.now() - started),
    totalBytes: collected.totalBytes,
    totalLines: collected.totalLines,
    truncated: collected.truncated,
    logPath: collected.logPath,
  };

  let text = collected.text === "" ? "(no output)" : collected.text.replace(/\n$/, "");
  const notes: string[] = [];
  if (detachedOutput && !stopReason) {
    notes.push("[bash exited but processes it started in the background still hold its output; what they print from now on is not captured. Redirect background output to a file to keep it.]");
  }
  if (stopReason === "timeout") {
    notes.push(
      `Command timed out after ${timeoutS}s; it and every process it started were killed. If it needs longer, pass a larger timeout (up to ${BASH_MAX_TIMEOUT_S}), or run it in the background with its output redirected to a file.`,
    );
  } else if (stopReason === "abort") {
    notes.push("Command aborted: the user cancelled it, and it and every process it started were killed.");
  } else if (proc.signalCode) {
    notes.push(`Command was killed by signal ${proc.signalCode}.`);
  } else if (proc.exitCode !== 0) {
    notes.push(`Command exited with code ${proc.exitCode}.`);
  }
  const failed = stopReason !== undefined || proc.signalCode !== null || proc.exitCode !== 0;
  // --- sandbox (issue 21): a refusal by the sandbox is said so, and may be run again outside it ---
  if (failed && !stopReason && context.sandbox && spawn.confinement !== "none" && looksRefused(collected.text)) {
    const firstLine = collected.text.split("\n").find((line) => looksRefused(line))?.trim().slice(0, 200) ?? "";
    const escalation = context.escalate ? await context.escalate(input.command, firstLine) : undefined;
    if (escalation?.allow) return runBash(input, { ...context, sandbox: undefined, escalate: undefined });
    notes.push(refusedNote(context.sandbox, escalation?.message));
  }
  if (notes.length > 0) text += `\n\n${notes.join("\n")}`;
  return failed ? errorResult(text, details) : textResult(text, details);
}
