import { z } from "zod";
import { AgentEvent } from "../protocol/agent-events.ts";
import { ErrorInfo } from "../protocol/error.ts";
import { ChangePreview, QuestionRequest } from "../session-host/protocol.ts";

/**
 * What `omp --mode rpc` writes on stdout, one JSON object per line. rpc itself imports only the
 * types: building these schemas is for the protocol's JSON Schema and for tests, not start-up.
 */

const id = { id: z.string().optional() };

/** The first frame, as the original omp writes it; get_state tells the protocol version (core/protocol/version.ts). */
export const RpcReady = z.object({ type: z.literal("ready"), warnings: z.array(z.string()).optional() });

/**
 * A command's answer, under its `id`. A failure carries `error` (the words, as the original omp
 * sends them) and `errorInfo`, the same failure typed: a client switches on its kind.
 */
export const RpcResponse = z.discriminatedUnion("success", [
  z.object({ ...id, type: z.literal("response"), command: z.string(), success: z.literal(true), data: z.unknown().optional() }),
  z.object({ ...id, type: z.literal("response"), command: z.string(), success: z.literal(false), error: z.string(), errorInfo: ErrorInfo }),
]);
export type RpcResponse = z.infer<typeof RpcResponse>;

/** An approval the host is asked for, in the original's extension UI protocol; answered with an extension_ui_response naming one of `options`. */
export const RpcUiRequest = z.object({
  type: z.literal("extension_ui_request"),
  id: z.string(),
  method: z.literal("select"),
  title: z.string(),
  /** What will happen: the command, or the call's summary followed by the diff it writes. */
  message: z.string(),
  options: z.array(z.string()),
  toolName: z.string(),
  effect: z.enum(["read", "write", "exec", "network"]),
  input: z.unknown(),
  /** `sandbox`: the command failed in the sandbox and would run again outside; `trust`: the project's code-running files changed since it was trusted. */
  kind: z.enum(["sandbox", "trust"]).optional(),
  changes: z.array(ChangePreview).optional(),
});
export type RpcUiRequest = z.infer<typeof RpcUiRequest>;

/** Everything `omp --mode rpc` writes on stdout, one per line. */
export const RpcFrame = z.union([RpcReady, RpcResponse, RpcUiRequest, QuestionRequest, AgentEvent]);
export type RpcFrame = z.infer<typeof RpcFrame>;
