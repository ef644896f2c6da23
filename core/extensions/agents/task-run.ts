import { describeError } from "../../errors/omp-error.ts";
import { recordedChange } from "../../tools/file-writes.ts";
import { errorResult, textResult } from "../../tools/format.ts";
import type { Isolation, IsolationReturn } from "../../worktree/isolated-task.ts";
import type { Tool, ToolContext, ToolImplementation, ToolResult } from "../../tools/types.ts";
import { matchNames } from "../hooks/claude-tools.ts";
import type { AgentDefinition } from "./builtin.ts";
import { TaskInput } from "./task-schema.ts";
import { named } from "../../tools/discovery/policy.ts";

/** Subagents may start subagents (when their definition lists the task tool) down to this depth, no further. */
export const MAX_DEPTH = 2;

export interface TaskDetails {
  agent: string;
  /** An isolated task: what became of its changes. */
  isolation?: IsolationReturn;
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
  // Tools the definition names are sent as they are, none deferred to search_tool_bm25.
  return parent.filter((tool) => matchNames(tool.name).some((name) => wanted.has(name.toLowerCase())) && (tool.name !== "task" || mayNest)).map(named);
}

function systemPromptFor(definition: AgentDefinition, cwd: string): string {
  return [definition.systemPrompt, `Environment:\n- Working directory: ${cwd}\n- Platform: ${process.platform} ${process.arch}\n- Date: ${new Date().toISOString().slice(0, 10)}`].join("\n\n");
}

async function runTask(agents: readonly AgentDefinition[], input: TaskInput, context: ToolContext): Promise<ToolResult<TaskDetails>> {
  const subagents = context.subagents;
  if (!subagents) return errorResult("task can only run inside an agent session.");
  const definition = agents.find((agent) => agent.name === input.subagent_type);
  if (!definition) return errorResult(`There is no agent type ${JSON.stringify(input.subagent_type)}. Available: ${agents.map((agent) => agent.name).join(", ")}.`);
  const depth = subagents.depth + 1;
  if (depth > MAX_DEPTH) return errorResult(`task was not run: subagents may nest only ${MAX_DEPTH} deep.`);
  let isolation: Isolation | undefined;
  if (input.isolated) {
    try {
      isolation = (await import("../../worktree/isolated-task.ts")).isolate(context.cwd);
    } catch (thrown) {
      return errorResult(`task was not run: an isolated task needs a git repository to make its worktree in (${describeError(thrown)}). Run it without isolated, or in a repository.`);
    }
  }
  const cwd = isolation?.worktree.path ?? context.cwd;
  const outcome = await subagents.run({
    title: `${definition.name}: ${input.description}`,
    systemPrompt: systemPromptFor(definition, cwd),
    ...(definition.model === undefined ? {} : { model: definition.model }),
    tools: (available) => toolsFor(definition, available, depth),
    prompt: input.prompt,
    signal: context.signal,
    // An isolated task's writes land in its worktree; what comes back is recorded when applied here.
    ...(context.checkpoints && !isolation ? { checkpointsOf: context.checkpoints } : {}),
    ...(isolation ? { cwd } : {}),
    onToolStart: (toolName) => context.onUpdate?.(`[${definition.name}] → ${toolName}\n`),
  });
  const { stopReason, error, text } = outcome;
  const back = isolation ? await isolatedReport(isolation, context) : undefined;
  const details: TaskDetails = { agent: definition.name, sessionFile: outcome.sessionFile, stopReason, turns: outcome.turns, ...(back ? { isolation: back.outcome } : {}) };
  const note = back ? `\n\n${back.text}` : "";
  if (stopReason !== "stop" && stopReason !== "length") {
    return errorResult(`The ${definition.name} agent stopped (${stopReason}${error ? `: ${error}` : ""}).${text ? `\nIts last words:\n${text}` : ""}${note}`, details);
  }
  return textResult(`${text || `The ${definition.name} agent finished without a report.`}${note}`, details);
}

/** An isolated task's changes brought back into the caller's work tree, and the words that say how it went. */
async function isolatedReport(isolation: Isolation, context: ToolContext): Promise<{ outcome: IsolationReturn; text: string }> {
  const { bringBack } = await import("../../worktree/isolated-task.ts");
  let outcome: IsolationReturn;
  try {
    outcome = await bringBack(isolation, context.artifactsDir, (paths, change) => recordedChange(context, paths, change));
  } catch (thrown) {
    return { outcome: { kind: "conflict", reason: describeError(thrown), patchFile: "", files: [] }, text: `[isolation] Its changes could not be read back (${describeError(thrown)}); nothing was changed here. Its worktree: ${isolation.worktree.path}` };
  }
  if (outcome.kind === "unchanged") return { outcome, text: "[isolation] It changed no files." };
  if (outcome.kind === "applied") return { outcome, text: `[isolation] Its changes were applied here (${outcome.files.length} file(s)): ${outcome.files.join(", ")}` };
  return {
    outcome,
    text: `[isolation] Its changes were NOT applied: they conflict with the files here, and nothing was changed (${outcome.reason}). The patch is ${outcome.patchFile}; its worktree stays at ${isolation.worktree.path} (omp worktree merge ${isolation.worktree.name}).`,
  };
}

/** The task tool's code, for the agents it was made with. */
export function taskImplementation(agents: readonly AgentDefinition[]): ToolImplementation<typeof TaskInput, TaskDetails> {
  return { schema: TaskInput, execute: (input, context) => runTask(agents, input as TaskInput, context) };
}
