import { describeError } from "../errors/omp-error.ts";
import type { ApprovalGate, EditedChange } from "./approval.ts";
import { errorResult } from "./format.ts";
import { summarizeChanges } from "./change-preview.ts";
import type { BeforeToolOutcome, ToolCallInfo, ToolHookPoint } from "./hook-points.ts";
import type { Tool, ToolContext, ToolImplementation, ToolResult } from "./types.ts";

/**
 * One tool call from the model, start to finish: load the tool, validate the arguments against its
 * schema, let the before-hooks block or rewrite it, ask the approval gate, run, let the
 * after-hooks change the result. Every failure comes back as an error result the model can read,
 * never as an exception, so one bad call cannot end the turn.
 */
export async function runToolCall(
  tool: Tool,
  args: unknown,
  context: ToolContext,
  gate?: ApprovalGate,
  hooks: readonly ToolHookPoint[] = [],
  toolCallId = "",
): Promise<ToolResult> {
  let implementation: ToolImplementation;
  try {
    implementation = await tool.load();
  } catch (error) {
    return errorResult(`${tool.name} failed: ${describeError(error)}`);
  }
  let parsed = implementation.schema.safeParse(implementation.acceptInput ? implementation.acceptInput(args) : args);
  if (!parsed.success) {
    const { invalidArgumentsMessage } = await import("./invalid-arguments.ts");
    return errorResult(invalidArgumentsMessage(tool.name, parsed.error));
  }
  // tools.approval.<tool>: deny holds whatever a hook or permission rule would say.
  const refused = gate?.refusal(tool.name);
  if (refused !== undefined) return errorResult(refused, { denied: true });
  const call: ToolCallInfo = { toolName: tool.name, toolCallId, input: parsed.data as Record<string, unknown> };
  let decision: BeforeToolOutcome["decision"];
  let askReason: string | undefined;
  for (const point of hooks) {
    const outcome = await point.beforeToolCall?.(call, context.signal);
    if (!outcome) continue;
    if (outcome.block !== undefined) return { ...errorResult(outcome.block, { blocked: true }), ...(outcome.halt === undefined ? {} : { halt: outcome.halt }) };
    if (outcome.input) {
      parsed = implementation.schema.safeParse(outcome.input);
      if (!parsed.success) {
        const { invalidArgumentsMessage } = await import("./invalid-arguments.ts");
        return errorResult(`A hook rewrote the input, and the result is invalid. ${invalidArgumentsMessage(tool.name, parsed.error)}`);
      }
      call.input = parsed.data as Record<string, unknown>;
    }
    // "ask" wins over "allow": any hook wanting the user's word gets it.
    if (outcome.decision && decision !== "ask") {
      decision = outcome.decision;
      askReason = outcome.reason;
    }
  }
  const effect = implementation.effectOf?.(parsed.data) ?? tool.effect;
  // The deny-list holds whatever a hook said, on the input as the hooks left it.
  const pathRefused = gate?.pathRefusal(tool.name, parsed.data);
  if (pathRefused !== undefined) return errorResult(pathRefused, { denied: true });
  let edited: EditedChange | undefined;
  // Plan mode refuses changes even where a hook or an allow rule said yes.
  const readOnly = gate?.readOnlyRefusal({ name: tool.name, effect }, parsed.data);
  if (readOnly !== undefined) return errorResult(readOnly, { denied: true });
  if (gate && (decision !== "allow" || gate.alwaysAsks(tool.name))) {
    const input = parsed.data;
    const preview = implementation.preview ? () => implementation.preview!(input, context) : undefined;
    const outcome = await gate.check({ name: tool.name, effect }, input, decision === "ask" ? { reason: askReason } : undefined, toolCallId || undefined, preview);
    if (!outcome.allow) {
      return { ...errorResult(outcome.message, { denied: true, ...(outcome.changes ? { changes: summarizeChanges(outcome.changes) } : {}) }), ...(outcome.userDenied ? { userDenied: true as const } : {}) };
    }
    edited = outcome.edited;
  }
  if (context.signal.aborted) return errorResult(`${tool.name} was not run: the turn was aborted.`);
  let result: ToolResult;
  try {
    result = edited ? await writeEdited(edited, context) : await implementation.execute(parsed.data, context);
  } catch (error) {
    result = errorResult(`${tool.name} failed: ${describeError(error)}`);
  }
  for (const point of hooks) result = (await point.afterToolCall?.(call, result, context.signal)) ?? result;
  // A question the tool asked on its way (a private host, a rerun outside the sandbox) was answered with a plain no.
  if (gate?.takeDenial()) result = { ...result, userDenied: true };
  return result;
}

/** The user edited the change before accepting it: their version is written, and the model told how it differs from its own. */
async function writeEdited(edited: EditedChange, context: ToolContext): Promise<ToolResult> {
  const [{ writeTool }, { unifiedDiff }] = await Promise.all([import("./write.ts"), import("./diff.ts")]);
  const written = await writeTool.execute({ path: edited.path, content: edited.content }, context);
  if (written.isError) return written;
  const diff = unifiedDiff(edited.proposed, edited.content, edited.shown).text;
  const note = diff
    ? `The user edited your change to ${edited.shown} before accepting it; the file now holds their version. Their changes to yours:\n${diff}`
    : `The user accepted your change to ${edited.shown} as it was.`;
  const [first, ...rest] = written.content;
  return { ...written, content: first?.type === "text" ? [{ type: "text", text: `${note}\n${first.text}` }, ...rest] : written.content };
}
