import { invalidArgumentsError } from "../ai/index.ts";
import type { ToolCall, ToolResultMessage } from "../ai/messages.ts";
import { type ApprovalGate, provablyReadOnly } from "../tools/approval.ts";
import type { ToolHookPoint } from "../tools/hook-points.ts";
import { runToolCall } from "../tools/run.ts";
import type { Tool, ToolContext, ToolResult } from "../tools/types.ts";
import { CALL_TOOL_NAME, namedCall } from "../tools/discovery/tool-discovery.ts";
import type { AgentEvent } from "./events.ts";

/** What a reply's tool calls run with. */
export interface ToolCallRun {
  /** Read at each call: a tool source may change the list while a reply's calls run. */
  tools: () => Tool[];
  /** A tool the model was not sent but may run when it names it (a deferred one, which then joins the list). */
  unlisted?: (name: string) => Tool | undefined;
  /** The deferred tool a call_tool call names, run without joining the list. */
  deferred?: (name: string) => Tool | undefined;
  /** Everything each tool gets but its progress callback and call id. */
  context: Omit<ToolContext, "onUpdate" | "toolCallId">;
  gate: ApprovalGate;
  hooks: readonly ToolHookPoint[] | undefined;
  emit: (event: AgentEvent) => void;
  /** Filled with the reasons of hooks that said `continue: false`. */
  halts: string[];
  /** Set once the user denies a call without a word: the calls after it are not run. */
  denied?: boolean;
}

/**
 * Runs a reply's tool calls. Calls that only read run together; a call that writes or executes
 * waits for the ones before it and holds back the ones after, so effects happen in the order
 * the model asked for them. Results come back in call order.
 */
export async function runToolCalls(calls: ToolCall[], run: ToolCallRun): Promise<ToolResultMessage[]> {
  const results: ToolResultMessage[] = new Array(calls.length);
  let batch: Promise<void>[] = [];
  for (const [index, call] of calls.entries()) {
    const { target, tool } = resolve(call, run);
    const job = () => (run.denied ? skipped(call, run) : runOne(target, tool, run, call.name)).then((message) => void (results[index] = message));
    if (tool?.effect === "read") batch.push(job());
    else {
      await Promise.all(batch);
      batch = [];
      await job();
    }
  }
  await Promise.all(batch);
  return results;
}

/**
 * The call to run and its tool. A call_tool call runs the tool it names with the arguments it
 * gives, as if the model had called that tool: approvals, hooks, checkpoints and events see that
 * tool; only the result goes back under call_tool's name.
 */
function resolve(call: ToolCall, run: ToolCallRun): { target: ToolCall; tool: Tool | undefined } {
  if (call.name !== CALL_TOOL_NAME || !run.deferred || invalidArgumentsError(call.arguments)) return { target: call, tool: run.tools().find((t) => t.name === call.name) ?? run.unlisted?.(call.name) };
  const target: ToolCall = { ...call, ...namedCall(call.name, call.arguments) };
  const tool = target.name === CALL_TOOL_NAME ? undefined : (run.deferred(target.name) ?? run.tools().find((t) => t.name === target.name));
  return { target, tool };
}

/** `wireName`: the name the result goes back under (call_tool's for a call through it). */
async function runOne(call: ToolCall, tool: Tool | undefined, run: ToolCallRun, wireName: string): Promise<ToolResultMessage> {
  const { emit } = run;
  emit({ type: "tool_execution_start", toolCallId: call.id, toolName: call.name, args: call.arguments });
  let result: ToolResult;
  const badArguments = invalidArgumentsError(call.arguments);
  if (badArguments) {
    result = { content: [{ type: "text", text: badArguments }], isError: true };
  } else if (!tool) {
    const names = run.tools().map((t) => t.name).join(", ") || "none";
    result = { content: [{ type: "text", text: `There is no tool named ${call.name}. Available tools: ${names}.` }], isError: true };
  } else {
    const execute = () =>
      runToolCall(
        tool,
        call.arguments,
        {
          ...run.context,
          onUpdate: (output) => emit({ type: "tool_execution_update", toolCallId: call.id, toolName: call.name, output }),
          toolCallId: call.id,
        },
        run.gate,
        run.hooks,
        call.id,
      );
    result = tool.effect === "exec" && run.context.checkpoints && !provablyReadOnly(tool, call.arguments) ? await checkpointed(call, run.context.checkpoints, run.context.cwd, execute) : await execute();
  }
  if (result.halt !== undefined) run.halts.push(result.halt);
  if (result.userDenied) run.denied = true;
  return settle(call, result, run, wireName);
}

/** A call after one the user denied: not run, so the user decides what happens next. */
async function skipped(call: ToolCall, run: ToolCallRun): Promise<ToolResultMessage> {
  run.emit({ type: "tool_execution_start", toolCallId: call.id, toolName: call.name, args: call.arguments });
  return settle(call, { content: [{ type: "text", text: `${call.name} was not run: the user denied an earlier call in this reply.` }], isError: true, details: { denied: true } }, run);
}

function settle(call: ToolCall, result: ToolResult, run: ToolCallRun, wireName = call.name): ToolResultMessage {
  const { emit } = run;
  const message: ToolResultMessage = {
    role: "toolResult",
    toolCallId: call.id,
    toolName: wireName,
    content: result.content,
    isError: result.isError ?? false,
    ...(result.details === undefined ? {} : { details: result.details }),
    timestamp: Date.now(),
  };
  emit({ type: "tool_execution_end", toolCallId: call.id, toolName: call.name, isError: message.isError, details: result.details });
  emit({ type: "message_start", message });
  emit({ type: "message_end", message });
  return message;
}

/** A command's changes cannot be seen file by file: the work tree is snapshotted around it (core/session/checkpoints/commands.ts), unless the read-only classifier proves it changes nothing. */
async function checkpointed(call: ToolCall, target: NonNullable<ToolContext["checkpoints"]>, cwd: string, execute: () => Promise<ToolResult>): Promise<ToolResult> {
  const { aroundCommand } = await import("../session/checkpoints/commands.ts");
  const command = typeof call.arguments.command === "string" ? call.arguments.command : JSON.stringify(call.arguments);
  return aroundCommand(target, cwd, `${call.name} \`${command.length > 80 ? `${command.slice(0, 79)}…` : command}\``, call.id, execute);
}
