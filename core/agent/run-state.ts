import type { Message, Usage } from "../ai/messages.ts";
import type { ErrorInfo } from "../errors/error-kind.ts";
import type { AgentStopReason } from "./events.ts";

/** What one run carries from turn to turn. */
export interface RunState {
  readonly signal: AbortSignal;
  /** Model requests made so far. */
  turn: number;
  /** Messages that open the next turn: the prompt, then steering or follow-ups. */
  pending: Message[];
  /** The prompt as sent (with the session's facts update). */
  opening: Message;
  usage: Usage[];
  /** Each refusal is got over once per run. */
  overflowCompacted: boolean;
  thinkingDropped: boolean;
  stopBlocks: number;
  /** A reply was cut at the output limit; the run reports "length" even if a Stop hook went on after it. */
  truncated: boolean;
}

/** Why a run ended, and the error it reports; a failure's kind as it was classified where it arose. */
export interface RunStop {
  reason: AgentStopReason;
  error?: string | undefined;
  failure?: Omit<ErrorInfo, "message"> | undefined;
}
