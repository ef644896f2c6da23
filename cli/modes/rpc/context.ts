import type { RpcCommand } from "../../../core/rpc/protocol.ts";
import type { SessionHost } from "../../../core/session-host/host.ts";

/** What a command's handler has: the session's host, and the answer back to the client (cli/modes/rpc.ts). */
export interface RpcContext {
  readonly host: SessionHost;
  /** A compaction is running: commands that start a run are refused until it ends. */
  compacting: boolean;
  /** The answer to the host's own bash command, while it runs. */
  bash: Promise<void> | undefined;
  respond(command: string, id: string | undefined, data?: unknown): void;
  /** Answers `command` with a failure: `error` as thrown, or what went wrong in words. */
  fail(command: string, id: string | undefined, error: unknown): void;
  /** Answers `command` when `work` ends, without holding up the commands that follow it. */
  later(command: string, id: string | undefined, work: () => Promise<unknown>): Promise<void>;
}

/** Handlers by command type, each given its own command's shape. */
export type RpcHandlers = {
  [T in RpcCommand["type"]]?: (rpc: RpcContext, command: Extract<RpcCommand, { type: T }>) => Promise<void>;
};
