import type { Tool } from "./types.ts";

/**
 * What a tool may ask of the session it runs in to start an agent of its own (the task tool):
 * the tools never hold the agent itself, so core/tools does not depend on core/agent.
 */
export interface Subagents {
  /** How deep the calling agent is nested: 0 for the session's own agent, 1 for its subagents. */
  depth: number;
  /** Runs one subagent to its end; rejects only when it could not be started. */
  run(request: SubagentRequest): Promise<SubagentOutcome>;
}

export interface SubagentRequest {
  /** Its session's title. */
  title: string;
  systemPrompt: string;
  /** A model name or pattern; absent, "inherit", or one found nowhere: the caller's model. */
  model?: string;
  /** Picks its tools from the caller's. */
  tools(available: readonly Tool[]): Tool[];
  prompt: string;
  /** The caller's run; aborting it aborts the subagent. */
  signal: AbortSignal;
  /** Where its file changes are recorded: the calling tool call's checkpoints, so rewinding the caller undoes them. */
  checkpointsOf?: import("../session/checkpoints/target.ts").CheckpointTarget;
  /** Where it works instead of the caller's folder (an isolated task's worktree): its tools and commands may write there. */
  cwd?: string;
  /** Told of each tool call the subagent starts. */
  onToolStart?(toolName: string): void;
}

export interface SubagentOutcome {
  stopReason: string;
  /** Why it stopped, when it failed. */
  error?: string;
  turns: number;
  /** Its own session file (its whole transcript); null with --no-session. */
  sessionFile: string | null;
  /** The text of its last reply, trimmed; "" when there is none. */
  text: string;
}
