import { describeError } from "../errors/omp-error.ts";
import type { ApprovalGate } from "./approval.ts";
import { errorResult } from "./format.ts";
import type { Tool, ToolContext, ToolImplementation, ToolResult } from "./types.ts";

/**
 * One tool call from the model, start to finish: load the tool, validate the arguments against its
 * schema, ask the approval gate, run. Every failure comes back as an error result the model can
 * read, never as an exception, so one bad call cannot end the turn.
 */
export async function runToolCall(tool: Tool, args: unknown, context: ToolContext, gate?: ApprovalGate): Promise<ToolResult> {
  let implementation: ToolImplementation;
  try {
    implementation = await tool.load();
  } catch (error) {
    return errorResult(`${tool.name} failed: ${describeError(error)}`);
  }
  const parsed = implementation.schema.safeParse(args);
  if (!parsed.success) {
    const { invalidArgumentsMessage } = await import("./invalid-arguments.ts");
    return errorResult(invalidArgumentsMessage(tool.name, parsed.error));
  }
  if (gate) {
    const outcome = await gate.check(tool, parsed.data);
    if (!outcome.allow) return errorResult(outcome.message, { denied: true });
  }
  if (context.signal.aborted) return errorResult(`${tool.name} was not run: the turn was aborted.`);
  try {
    return await implementation.execute(parsed.data, context);
  } catch (error) {
    return errorResult(`${tool.name} failed: ${describeError(error)}`);
  }
}
