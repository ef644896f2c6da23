import { addUsage } from "../../ai/usage.ts";
import { endSessionJobs } from "../../shell/session-jobs.ts";
import { Agent } from "../../agent/agent.ts";
import { describeError } from "../../errors/omp-error.ts";
import { SessionWriter } from "../../session/writer.ts";
import { errorResult, textResult } from "../../tools/format.ts";
import type { Tool, ToolContext, ToolImplementation, ToolResult } from "../../tools/types.ts";
import { matchNames } from "../hooks/claude-tools.ts";
import type { AgentDefinition } from "./builtin.ts";
import { TaskInput } from "./task-schema.ts";

/** Subagents may start subagents (when their definition lists the task tool) down to this depth, no further. */
export const MAX_DEPTH = 2;

export interface TaskDetails {
  agent: string;
  /** The subagent's own session file (its whole transcript); null with --no-session. */
  sessionFile: string | null;
  stopReason: string;
  turns: number;
}

/** The parent's tools the definition allows, by omp's or Claude's name; task only where nesting may go on; never the parent's way out of plan mode. */
function toolsFor(definition: AgentDefinition, tools: readonly Tool[], depth: number): Tool[] {
  const mayNest = depth < MAX_DEPTH;
  const parent = tools.filter((tool) => tool.name !== "exit_plan_mode");
  if (!definition.tools) return parent.filter((tool) => tool.name !== "task");
  const wanted = new Set(definition.tools.map((name) => name.toLowerCase()));
  if (wanted.has("*")) return parent.filter((tool) => tool.name !== "task" || mayNest);
  return parent.filter((tool) => matchNames(tool.name).some((name) => wanted.has(name.toLowerCase())) && (tool.name !== "task" || mayNest));
}

function systemPromptFor(definition: AgentDefinition, parent: Agent): string {
  return [definition.systemPrompt, `Environment:\n- Working directory: ${parent.options.cwd}\n- Platform: ${process.platform} ${process.arch}\n- Date: ${new Date().toISOString().slice(0, 10)}`].join("\n\n");
}

async function runTask(agents: readonly AgentDefinition[], input: TaskInput, context: ToolContext): Promise<ToolResult> {
  const parent = context.agent;
  if (!parent) return errorResult("task can only run inside an agent session.");
  const definition = agents.find((agent) => agent.name === input.subagent_type);
  if (!definition) return errorResult(`There is no agent type ${JSON.stringify(input.subagent_type)}. Available: ${agents.map((agent) => agent.name).join(", ")}.`);
  const depth = (parent.options.depth ?? 0) + 1;
  if (depth > MAX_DEPTH) return errorResult(`task was not run: subagents may nest only ${MAX_DEPTH} deep.`);

  let model = parent.model;
  let apiKey = parent.apiKey;
  // A definition without a model runs on the smol role's model when one is configured; `inherit` keeps the parent's.
  const smol = definition.model ? undefined : await parent.options.roleModel?.("smol");
  if (smol) ({ model, apiKey } = smol);
  if (definition.model && definition.model !== "inherit" && parent.options.selectModel) {
    try {
      ({ model, apiKey } = await parent.options.selectModel(definition.model));
    } catch {
      // A Claude alias (sonnet, haiku) with no such model here: the parent's model does the work.
    }
  }
  const writer = parent.writer
    ? SessionWriter.create({
        cwd: parent.options.cwd,
        sessionDir: `${parent.artifactsDir}/subagents`,
        parentSession: parent.writer.path,
        title: `${definition.name}: ${input.description}`,
        secrets: parent.options.secrets,
      })
    : undefined;
  const child = new Agent({
    ...parent.options,
    model,
    apiKey,
    thinking: model.reasoning ? parent.thinking : "off",
    tools: toolsFor(definition, parent.tools, depth),
    systemPrompt: systemPromptFor(definition, parent),
    writer,
    messages: undefined,
    messageEntryIds: undefined,
    artifactsDir: writer ? writer.path.replace(/\.jsonl$/, "") : `${parent.artifactsDir}/subagent-${crypto.randomUUID().slice(0, 8)}`,
    maxTurns: undefined,
    announceModel: true,
    depth,
    ...(context.checkpoints ? { checkpointsOf: context.checkpoints } : {}),
  });
  let turns = 0;
  let error: string | undefined;
  child.subscribe((event) => {
    if (event.type === "turn_start") turns = event.turn;
    else if (event.type === "tool_execution_start") context.onUpdate?.(`[${definition.name}] → ${event.toolName}\n`);
    else if (event.type === "agent_end") error = event.error;
  });
  const stopChild = () => child.abort("aborted", "the parent run was aborted");
  context.signal.addEventListener("abort", stopChild, { once: true });
  let stopReason: string;
  try {
    stopReason = await child.prompt(input.prompt);
  } catch (thrown) {
    stopReason = "error";
    error = describeError(thrown);
  } finally {
    context.signal.removeEventListener("abort", stopChild);
    parent.usage = addUsage(parent.usage, child.usage);
    child.writer?.close();
    // Its background jobs end with it: nothing else can reach them.
    await endSessionJobs(child);
  }
  const details: TaskDetails = { agent: definition.name, sessionFile: writer?.path ?? null, stopReason, turns };
  const last = child.messages.findLast((message) => message.role === "assistant");
  const text = last?.role === "assistant" ? last.content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("\n").trim() : "";
  if (stopReason !== "stop" && stopReason !== "length") {
    return errorResult(`The ${definition.name} agent stopped (${stopReason}${error ? `: ${error}` : ""}).${text ? `\nIts last words:\n${text}` : ""}`, details);
  }
  return textResult(text || `The ${definition.name} agent finished without a report.`, details);
}

/** The task tool's code, for the agents it was made with. */
export function taskImplementation(agents: readonly AgentDefinition[]): ToolImplementation {
  return { schema: TaskInput, execute: (input, context) => runTask(agents, input as TaskInput, context) };
}
