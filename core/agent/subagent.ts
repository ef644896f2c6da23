import { addUsage } from "../ai/usage.ts";
import { describeError } from "../errors/omp-error.ts";
import { SessionWriter } from "../session/writer.ts";
import { endSessionJobs } from "../shell/session-jobs.ts";
import { endSessionKernels } from "../eval/session-kernels.ts";
import type { SubagentOutcome, SubagentRequest } from "../tools/subagents.ts";
import { linkedGitDirs, protectedPaths } from "../sandbox/policy.ts";
import { Agent } from "./agent.ts";

/** Runs a subagent of `parent` (see Subagents in core/tools/subagents.ts): its own session, the parent's settings, one level deeper. */
export async function runSubagent(parent: Agent, request: SubagentRequest): Promise<SubagentOutcome> {
  let model = parent.model;
  let apiKey = parent.apiKey;
  // A definition without a model runs on the smol role's model when one is configured; `inherit` keeps the parent's.
  const smol = request.model ? undefined : await parent.options.roleModel?.("smol");
  if (smol) ({ model, apiKey } = smol);
  if (request.model && request.model !== "inherit" && parent.options.selectModel) {
    try {
      ({ model, apiKey } = await parent.options.selectModel(request.model));
    } catch {
      // A Claude alias (sonnet, haiku) with no such model here: the parent's model does the work.
    }
  }
  const writer = parent.writer
    ? SessionWriter.create({
        cwd: parent.options.cwd,
        sessionDir: `${parent.artifactsDir}/subagents`,
        parentSession: parent.writer.path,
        title: request.title,
        secrets: parent.options.secrets,
      })
    : undefined;
  const sandbox = parent.options.sandbox;
  const child = new Agent({
    ...parent.options,
    ...(request.cwd
      ? {
          cwd: request.cwd,
          gate: parent.options.gate.forWorkspace(request.cwd),
          ...(sandbox
            ? { sandbox: { ...sandbox, writable: [...new Set([...sandbox.writable, request.cwd, ...linkedGitDirs(request.cwd)])], protected: [...new Set([...sandbox.protected, ...protectedPaths(request.cwd)])] } }
            : {}),
        }
      : {}),
    model,
    apiKey,
    thinking: model.reasoning ? parent.thinking : "off",
    tools: request.tools(parent.tools),
    systemPrompt: request.systemPrompt,
    writer,
    messages: undefined,
    messageEntryIds: undefined,
    // A resumed parent's stored system prompt and tools are the parent's: the child makes its own.
    frame: undefined,
    dropThinking: false,
    artifactsDir: writer ? writer.path.replace(/\.jsonl$/, "") : `${parent.artifactsDir}/subagent-${crypto.randomUUID().slice(0, 8)}`,
    maxTurns: undefined,
    announceModel: true,
    depth: (parent.options.depth ?? 0) + 1,
    ...(request.checkpointsOf ? { checkpointsOf: request.checkpointsOf } : {}),
  });
  let turns = 0;
  let error: string | undefined;
  child.subscribe((event) => {
    if (event.type === "turn_start") turns = event.turn;
    else if (event.type === "tool_execution_start") request.onToolStart?.(event.toolName);
    else if (event.type === "agent_end") error = event.error;
  });
  const stopChild = () => child.abort("aborted", "the parent run was aborted");
  request.signal.addEventListener("abort", stopChild, { once: true });
  let stopReason: string;
  try {
    stopReason = await child.prompt(request.prompt);
  } catch (thrown) {
    stopReason = "error";
    error = describeError(thrown);
  } finally {
    request.signal.removeEventListener("abort", stopChild);
    parent.usage = addUsage(parent.usage, child.usage);
    child.writer?.close();
    // Its background jobs and eval kernels end with it: nothing else can reach them.
    await endSessionJobs(child);
    endSessionKernels(child);
  }
  const last = child.messages.findLast((message) => message.role === "assistant");
  const text = last?.role === "assistant" ? last.content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("\n").trim() : "";
  return { stopReason, ...(error === undefined ? {} : { error }), turns, sessionFile: writer?.path ?? null, text };
}
