import { SessionError } from "../errors/session-error.ts";
import type { RewindPlan, RewindResult } from "../session/checkpoints/rewind.ts";
import type { SessionHost } from "./host.ts";

/**
 * The rewind op: back to just before a user message, for the conversation (a new branch there,
 * through the branch op), the files omp changed since (core/session/checkpoints/rewind.ts), or
 * both. Files go first: a plan that cannot be made (not a user message on this branch) stops
 * everything before anything changed.
 */

export type RewindScope = "conversation" | "files" | "both";

export interface RewindOutcome {
  /** What happened to the files (scope files or both). */
  files?: RewindResult;
  /** The user message's text, for the editor (scope conversation or both). */
  text?: string;
}

export async function planSessionRewind(host: SessionHost, entryId: string): Promise<RewindPlan> {
  const { planRewind } = await import("../session/checkpoints/rewind.ts");
  return planRewind(host.agent, entryId);
}

export async function rewindSession(host: SessionHost, entryId: string, scope: RewindScope): Promise<RewindOutcome> {
  if (host.agent.isRunning) throw new SessionError("busy", "abort the running turn first");
  const outcome: RewindOutcome = {};
  if (scope !== "conversation") {
    const { rewindFiles } = await import("../session/checkpoints/rewind.ts");
    outcome.files = rewindFiles(await planSessionRewind(host, entryId), host.agent.options.checkpoints?.maxBytes, host.agent.options.gate.paths);
  }
  if (scope !== "files") outcome.text = (await host.branch(entryId)).text;
  return outcome;
}
