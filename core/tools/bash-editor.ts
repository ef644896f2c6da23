import { createNumberedLog, OutputCollector } from "../shell/bash-output.ts";
import { BASH_MAX_TIMEOUT_S, type BashDetails } from "./bash.ts";
import { NON_INTERACTIVE_ENV } from "../shell/spawn.ts";
import { errorResult, textResult } from "./format.ts";
import type { EditorBridge, ToolContext, ToolResult } from "./types.ts";

/** What the editor's terminal keeps of a command's output for omp (the start is dropped beyond it). */
const EDITOR_OUTPUT_BYTES = 1024 * 1024;

/**
 * bash in the editor's terminal (ACP `terminal/*`): the user watches the command run where they
 * work. The output comes back whole once it exits and is cut for the model as bash cuts its own.
 */
export async function runInEditor(
  run: NonNullable<EditorBridge["runCommand"]>,
  command: string,
  cwd: string,
  timeoutS: number,
  context: ToolContext,
): Promise<ToolResult<BashDetails>> {
  const started = performance.now();
  const result = await run({
    command,
    cwd,
    env: NON_INTERACTIVE_ENV,
    timeoutMs: timeoutS * 1000,
    signal: context.signal,
    ...(context.toolCallId ? { toolCallId: context.toolCallId } : {}),
    outputByteLimit: EDITOR_OUTPUT_BYTES,
  });
  const output = new OutputCollector(() => createNumberedLog(context.artifactsDir, "bash"), undefined, context.redact);
  output.push(new TextEncoder().encode(result.output));
  const collected = output.finish();
  const aborted = context.signal.aborted;
  const details: BashDetails = {
    command,
    cwd,
    exitCode: result.exitCode,
    signal: result.signal,
    timedOut: result.timedOut,
    aborted,
    durationMs: Math.round(performance.now() - started),
    totalBytes: collected.totalBytes,
    totalLines: collected.totalLines,
    truncated: collected.truncated || result.truncated,
    logPath: collected.logPath,
  };
  let text = collected.text === "" ? "(no output)" : collected.text.replace(/\n$/, "");
  if (result.truncated) text = `[the editor's terminal kept only the last ${EDITOR_OUTPUT_BYTES} bytes]\n${text}`;
  let note: string | undefined;
  if (result.timedOut) note = `Command timed out after ${timeoutS}s and was killed. If it needs longer, pass a larger timeout (up to ${BASH_MAX_TIMEOUT_S}).`;
  else if (aborted) note = "Command aborted: the user cancelled it, and it was killed.";
  else if (result.signal) note = `Command was killed by signal ${result.signal}.`;
  else if (result.exitCode !== 0) note = `Command exited with code ${result.exitCode}.`;
  if (note) text += `\n\n${note}`;
  return note ? errorResult(text, details) : textResult(text, details);
}
