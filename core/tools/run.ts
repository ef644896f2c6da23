import { z } from "zod";
import { describeError } from "../errors/omp-error.ts";
import type { ApprovalGate } from "./approval.ts";
import { errorResult } from "./format.ts";
import type { Tool, ToolContext, ToolResult } from "./types.ts";

/**
 * One tool call from the model, start to finish: validate the arguments against the schema,
 * ask the approval gate, run. Every failure comes back as an error result the model can read,
 * never as an exception, so one bad call cannot end the turn.
 */
export async function runToolCall(tool: Tool, args: unknown, context: ToolContext, gate?: ApprovalGate): Promise<ToolResult> {
  const parsed = tool.schema.safeParse(args);
  if (!parsed.success) {
    return errorResult(`Invalid arguments for ${tool.name}:\n${z.prettifyError(parsed.error)}\nFix them and call ${tool.name} again.`);
  }
  if (gate) {
    const outcome = await gate.check(tool, parsed.data);
    if (!outcome.allow) return errorResult(outcome.message, { denied: true });
  }
  if (context.signal.aborted) return errorResult(`${tool.name} was not run: the turn was aborted.`);
  try {
    return await tool.execute(parsed.data, context);
  } catch (error) {
    return errorResult(`${tool.name} failed: ${describeError(error)}`);
  }
}
