import { declared } from "./declare.ts";
import { BASH_DEFAULT_TIMEOUT_S, bash as bashDeclaration } from "./declarations/bash.ts";
import { statSync } from "node:fs";
import { z } from "zod";
import type { Job, JobEnd } from "../shell/job.ts";
import { jobsFor } from "../shell/jobs.ts";
import { errorResult, textResult } from "./format.ts";
import { displayPath, resolveToolPath } from "./paths.ts";
import type { ToolContext, ToolDefinition, ToolResult } from "./types.ts";
import { classifyRefusal, explainRefusal, refusedNote } from "../sandbox/denial.ts";
import { quarantineNote } from "../sandbox/created-protected.ts";

export const BASH_MAX_TIMEOUT_S = 3600;
/** The terminal a `pty: true` command gets. */
export const PTY_SIZE = { cols: 100, rows: 30 };

const schema = z.object({
  command: z.string().describe("Command line; pipes, && and several lines are fine"),
  timeout: z
    .number()
    .min(1)
    .max(BASH_MAX_TIMEOUT_S)
    .optional()
    .describe(`Seconds (default ${BASH_DEFAULT_TIMEOUT_S})`),
  cwd: z.string().optional().describe("Directory to run in"),
  background: z.boolean().optional().describe("Run as a job; returns its id at once"),
  pty: z.boolean().optional().describe("Run in a terminal as a job; returns its screen"),
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
  /** The command went on as a job (background, pty, or still running at bash.autoBackgroundSeconds). */
  jobId?: number;
}

export const bashTool: ToolDefinition<typeof schema, BashDetails> = {
  ...declared(bashDeclaration),
  schema,
  execute(input, context) {
    return runBash(input, context);
  },
};

async function runBash(input: z.infer<typeof schema>, context: ToolContext): Promise<ToolResult<BashDetails>> {
  const cwd = resolveToolPath(context.cwd, input.cwd);
  let isDir = false;
  try {
    isDir = statSync(cwd).isDirectory();
  } catch {
    return errorResult(`Working directory does not exist: ${displayPath(context.cwd, cwd)}`);
  }
  if (!isDir) return errorResult(`Working directory is not a directory: ${displayPath(context.cwd, cwd)}`);
  if (context.settings?.bashInterceptor.enabled) {
    const { interceptBash } = await import("./bash-interceptor.ts");
    const blocked = interceptBash(input.command, (tool) => context.hasTool?.(tool) ?? false);
    if (blocked) return errorResult(blocked);
  }
  if (context.signal.aborted) return errorResult("Command not run: the call was aborted before it started.");

  // An editor that lends its terminal (ACP) runs the command where the user watches it; jobs and PTYs stay omp's.
  const inEditor = context.editor?.runCommand;
  if (inEditor && !input.background && !input.pty) {
    return (await import("./bash-editor.ts")).runInEditor(inEditor, input.command, cwd, input.timeout ?? context.bashTimeoutSeconds ?? BASH_DEFAULT_TIMEOUT_S, context);
  }

  const jobs = jobsFor(context.jobScope);
  const asJob = input.background === true || input.pty === true;
  const job = jobs.start(
    {
      command: input.command,
      cwd,
      artifactsDir: context.artifactsDir,
      ...(input.pty ? { pty: PTY_SIZE } : {}),
      stdin: asJob,
      ...(context.redact ? { redact: context.redact } : {}),
      ...(context.shell?.maxLogBytes ? { maxLogBytes: context.shell.maxLogBytes } : {}),
      // The model's commands: confined by the session's policy (none when it is off), never with omp's secrets.
      sandbox: { policy: context.sandbox, secrets: context.secrets ?? [] },
    },
    asJob,
  );
  if (asJob) {
    const log = job.collector.logPath ? ` Its output is logged to ${job.collector.logPath}.` : "";
    const how = `Read it with ${jobCall(context, { action: "read", id: job.id })} (wait_for: a regex to wait for, timeout: seconds), send input with "write", stop it with "kill".${log}`;
    if (!input.pty) return textResult(`Started job ${job.id} (pid ${job.pid}) in the background. ${how}`, jobDetails(job, cwd));
    const { text } = await jobs.read(job, { signal: context.signal, expectOutput: true });
    return textResult(`${text}\n\nStarted job ${job.id} in a terminal. ${how} Keys: text with \\r for Enter, \\x1b, <up>, <c-c> and the like.`, jobDetails(job, cwd));
  }

  const unsubscribe = context.onUpdate ? job.onOutput((text) => text && context.onUpdate!(text)) : undefined;
  const timeoutS = input.timeout ?? context.bashTimeoutSeconds ?? BASH_DEFAULT_TIMEOUT_S;
  const autoS = context.shell?.autoBackgroundSeconds ?? 0;
  const onAbort = () => job.stop("abort");
  context.signal.addEventListener("abort", onAbort, { once: true });
  // Past the auto-background threshold the command goes on as a job instead of timing out.
  const auto = autoS > 0 && autoS < timeoutS;
  const timer = auto ? setTimeout(() => jobs.toBackground(job), autoS * 1000) : setTimeout(() => job.stop("timeout"), timeoutS * 1000);
  try {
    // The user may send it to the background (Ctrl+B) before either timer fires.
    const outcome = await Promise.race([job.ended, job.backgrounded]);
    if (outcome === "background") {
      const seconds = (Date.now() - job.startedAt) / 1000;
      const why = auto && seconds >= autoS ? `Still running after ${autoS}s` : `The user sent it to the background after ${seconds.toFixed(1)}s`;
      const { text } = job.unread.take();
      return textResult(
        `${text === "" ? "(no output yet)" : text.replace(/\n$/, "")}\n\n[${why}, so it goes on in the background as job ${job.id}. Read its new output with ${jobCall(context, { action: "read", id: job.id })} (wait_for/timeout to wait for it), or stop it with {"action":"kill","id":${job.id}}.]`,
        jobDetails(job, cwd),
      );
    }
    // --- sandbox (issue 21): a refusal by the sandbox is said so, and may be run again outside it ---
    const failed = !outcome.stopReason && (outcome.signal !== null || outcome.exitCode !== 0);
    const refusal = failed && context.sandbox && job.confinement !== "none" ? classifyRefusal(outcome.output.text) : undefined;
    if (refusal) {
      const escalation = context.escalate ? await context.escalate(input.command, refusal, explainRefusal(refusal, context.sandbox!)) : undefined;
      if (escalation?.allow) return runBash(input, { ...context, sandbox: undefined, escalate: undefined });
      return endResult(input.command, cwd, outcome, timeoutS, refusedNote(context.sandbox!, refusal, escalation?.message));
    }
    return endResult(input.command, cwd, outcome, timeoutS);
  } finally {
    clearTimeout(timer);
    unsubscribe?.();
    context.signal.removeEventListener("abort", onAbort);
  }
}

/** The job call the model makes next, as it makes it now (through call_tool while job is deferred). */
function jobCall(context: ToolContext, args: Record<string, unknown>): string {
  return context.callOf?.("job", args) ?? `job ${JSON.stringify(args)}`;
}

function jobDetails(job: Job, cwd: string): BashDetails {
  return {
    command: job.command,
    cwd,
    exitCode: null,
    signal: null,
    timedOut: false,
    aborted: false,
    durationMs: Date.now() - job.startedAt,
    totalBytes: job.collector.bytes,
    totalLines: 0,
    truncated: false,
    jobId: job.id,
  };
}

function endResult(command: string, cwd: string, end: JobEnd, timeoutS: number, sandboxNote?: string): ToolResult<BashDetails> {
  const collected = end.output;
  const details: BashDetails = {
    command,
    cwd,
    exitCode: end.exitCode,
    signal: end.signal,
    timedOut: end.stopReason === "timeout",
    aborted: end.stopReason === "abort",
    durationMs: end.durationMs,
    totalBytes: collected.totalBytes,
    totalLines: collected.totalLines,
    truncated: collected.truncated,
    logPath: collected.logPath,
  };

  let text = collected.text === "" ? "(no output)" : collected.text.replace(/\n$/, "");
  const notes: string[] = [];
  if (end.leftBehind > 0 && !end.stopReason) {
    notes.push(
      `[bash exited while processes it started were still running; they were ended with it. To keep a server or watcher running, use background: true.]`,
    );
  }
  if (end.stopReason === "timeout") {
    notes.push(
      `Command timed out after ${timeoutS}s; it and every process it started were killed. If it needs longer, pass a larger timeout (up to ${BASH_MAX_TIMEOUT_S}), or run it with background: true.`,
    );
  } else if (end.stopReason === "abort") {
    notes.push("Command aborted: the user cancelled it, and it and every process it started were killed.");
  } else if (end.stopReason === "disk-full") {
    notes.push(`Command ended: the disk filled up while its output was being saved (${collected.logError ?? "no space left"}). Free some space and run it again, or redirect its output elsewhere.`);
  } else if (end.signal) {
    notes.push(`Command was killed by signal ${end.signal}.`);
  } else if (end.exitCode !== 0) {
    notes.push(`Command exited with code ${end.exitCode}.`);
  }
  // Files that would run code later, made where none were: moved out of the project as it ended (created-protected.ts).
  if (end.quarantined.length > 0) notes.push(quarantineNote(end.quarantined));
  if (sandboxNote) notes.push(sandboxNote);
  const failed = end.stopReason !== undefined || end.signal !== null || end.exitCode !== 0;
  if (notes.length > 0) text += `\n\n${notes.join("\n")}`;
  return failed ? errorResult(text, details) : textResult(text, details);
}
