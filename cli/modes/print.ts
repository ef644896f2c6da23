import type { SessionHost } from "../../core/session-host/host.ts";
import type { AgentStopReason } from "../../core/agent/events.ts";
import type { ImageContent, TextContent } from "../../core/ai/messages.ts";
import { EXIT_FAILURE, EXIT_INTERRUPTED, EXIT_TIMED_OUT, signalExitCode } from "../../core/errors/exit-codes.ts";
import { progressArgument } from "../../core/tools/presentation.ts";
import { stderr, stdout } from "./output.ts";
import { isTerminal } from "../shared/tty.ts";
import { stripTerminalControls } from "../shared/terminal-text.ts";

/** Exit statuses of a headless run. */
export function exitStatusFor(reason: AgentStopReason): number {
  switch (reason) {
    case "stop":
    case "length":
    case "hook":
    case "denied":
      return 0;
    case "aborted":
      return EXIT_INTERRUPTED;
    case "max_time":
      return EXIT_TIMED_OUT;
    default:
      return EXIT_FAILURE;
  }
}

/**
 * Runs the prompt through the host to its end; the first SIGINT or SIGTERM aborts the run (its
 * session kept), a second one exits at once. What the host said of the prompt (a command's
 * warnings, a mention that names nothing) goes to `say`. Returns the exit status.
 */
export async function promptUntilDone(host: SessionHost, prompt: (TextContent | ImageContent)[], say: (line: string) => void): Promise<number> {
  let stopping: NodeJS.Signals | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) process.exit(signalExitCode(signal));
    stopping = signal;
    void host.stop("aborted", signal === "SIGINT" ? "interrupted (Ctrl-C)" : `stopped by ${signal}`);
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  let blocked = false;
  try {
    const reason = await host.submit(
      { type: "prompt", content: prompt },
      {
        accepted: (accepted) => {
          for (const warning of accepted.warnings) say(warning);
          blocked = accepted.blocked;
        },
      },
    );
    // A command a hook blocked sent nothing: a failure, said above.
    if (blocked) return EXIT_FAILURE;
    // Stopped by a signal: the shell's convention, 128 + its number (SIGTERM 143, SIGINT 130).
    return stopping && reason === "aborted" ? signalExitCode(stopping) : exitStatusFor(reason ?? "stop");
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}

/**
 * `omp -p`: the answer streams to stdout, everything else (tool calls, retries, errors) goes to
 * stderr, so `omp -p "..." > answer.md` captures just the answer.
 */
export async function runPrintMode(host: SessionHost, prompt: (TextContent | ImageContent)[], say: (line: string) => void): Promise<number> {
  let endsWithNewline = true;
  let wroteText = false;
  // On a terminal the model's text cannot act on it (OSC 52 clipboard, titles, cursor games); piped, it stays as written.
  const shown = isTerminal(1) ? stripTerminalControls : (text: string) => text;
  // The progress lines carry the model's arguments (a command, a path) and errors: the same holds for them.
  const err = isTerminal(2) ? (line: string) => stderr.write(`${stripTerminalControls(line)}\n`) : (line: string) => stderr.write(`${line}\n`);
  host.subscribe((event) => {
    switch (event.type) {
      case "message_update": {
        const delta = event.assistantMessageEvent;
        if (delta.type === "text_delta") {
          stdout.write(shown(delta.delta));
          endsWithNewline = delta.delta.endsWith("\n");
          wroteText = true;
        } else if (delta.type === "text_start" && wroteText && !endsWithNewline) {
          stdout.write("\n");
          endsWithNewline = true;
        }
        break;
      }
      case "tool_call":
        err(`→ ${event.toolName} ${progressArgument(event.toolName, event.input)}`);
        break;
      case "tool_execution_end":
        if (event.isError) err(`✗ ${event.toolName} failed`);
        break;
      case "auto_retry_start":
        if (event.discarded && wroteText) {
          // The answer so far was cut off; the retry's answer starts on a line of its own.
          if (!endsWithNewline) stdout.write("\n");
          endsWithNewline = true;
          err("the provider broke off the answer above and answered differently when asked again; its new answer follows in full");
        }
        err(`retrying in ${(event.delayMs / 1000).toFixed(1)} s (attempt ${event.attempt}): ${event.reason}`);
        break;
      case "ttsr_triggered": {
        const names = event.rules.map((rule) => rule.name).join(", ");
        if (event.interrupted && wroteText && !endsWithNewline) {
          stdout.write("\n");
          endsWithNewline = true;
        }
        err(event.interrupted ? `rule ${names} stopped the answer; asking again with the rule` : `rule ${names} matched; the model is reminded of it`);
        break;
      }
      case "auto_compaction_start":
        err("compacting the conversation…");
        break;
      case "auto_compaction_end":
        if (event.error) err(`compaction failed: ${event.error}`);
        break;
      case "agent_end":
        if (wroteText && !endsWithNewline) stdout.write("\n");
        if (event.error) err(`omp: ${event.error}`);
        else if (event.stopReason === "length") err("omp: the answer stopped at the model's output limit (max tokens), so it may be incomplete");
        break;
    }
  });
  try {
    return await promptUntilDone(host, prompt, say);
  } finally {
    await Promise.all([stdout.flush(), stderr.flush()]);
  }
}
