import type { Agent } from "../../../core/agent/agent.ts";
import type { Runtime } from "../../../core/agent/runtime.ts";
import type { SessionControl } from "../../../core/agent/session-control.ts";
import type { RpcCommand } from "../../../core/rpc/protocol.ts";
import type { SessionHost } from "../../../core/session-host/host.ts";

/** What a command's handler may use of the rpc session (cli/modes/rpc.ts). */
export interface RpcContext {
  readonly agent: Agent;
  readonly runtime: Runtime;
  readonly control: SessionControl;
  readonly host: SessionHost;
  /** A compaction is running: commands that start a run are refused until it ends. */
  compacting: boolean;
  /** The host's own bash command, while it runs (one at a time). */
  bash: { controller: AbortController; run: Promise<void> } | undefined;
  respond(command: string, id: string | undefined, data?: unknown): void;
  /** Answers `command` with a failure: `error` as thrown, classified once (core/errors/error-kind.ts). */
  fail(command: string, id: string | undefined, error: unknown): void;
  /** Answers `command` when `work` ends, without holding up the commands that follow it. */
  later(command: string, id: string | undefined, work: () => Promise<unknown>): void;
}

/** Handlers by command type, each given its own command's shape. */
export type RpcHandlers = {
  [T in RpcCommand["type"]]?: (rpc: RpcContext, command: Extract<RpcCommand, { type: T }>) => Promise<void>;
};
