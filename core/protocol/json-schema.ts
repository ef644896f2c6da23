import { z } from "zod";
import { AssistantMessage, Message, ToolResultMessage, Usage, UserMessage } from "../ai/messages-schema.ts";
import { RpcFrame, RpcReady, RpcResponse, RpcUiRequest } from "../rpc/frames.ts";
import { RpcCommand, RpcUiResponse } from "../rpc/protocol.ts";
import { RPC_RESULTS } from "../rpc/results.ts";
import { HostOp, HostOwnEvent, QuestionRequest } from "../session-host/protocol.ts";
import { AgentEvent, AssistantDelta } from "./agent-events.ts";
import { ErrorInfo } from "./error.ts";
import { PROTOCOL_VERSION } from "./version.ts";

/**
 * The session protocol as one JSON Schema document (draft 2020-12): every definition under
 * `$defs`, named as in the code, referring to each other. Built from the zod schemas, so it
 * cannot drift from what omp accepts and sends; `omp protocol schema` prints it and the build
 * writes it beside dist/omp.
 */

/** The definitions, by name: rpc's transport (commands in, frames out, results), the host's operations and events, and what they are made of. */
export const PROTOCOL_DEFINITIONS = {
  RpcCommand,
  RpcUiResponse,
  RpcFrame,
  RpcReady,
  RpcResponse,
  RpcUiRequest,
  RpcResults: z.object(RPC_RESULTS),
  QuestionRequest,
  AgentEvent,
  AssistantDelta,
  HostOp,
  HostOwnEvent,
  ErrorInfo,
  Message,
  UserMessage,
  AssistantMessage,
  ToolResultMessage,
  Usage,
} satisfies Record<string, z.ZodType>;

export type JsonSchema = { [key: string]: unknown };

export interface ProtocolDocument {
  $schema: string;
  title: string;
  description: string;
  "x-protocol-version": number;
  $defs: Record<keyof typeof PROTOCOL_DEFINITIONS, JsonSchema>;
}

export function protocolJsonSchema(): ProtocolDocument {
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of Object.entries(PROTOCOL_DEFINITIONS)) registry.add(schema, { id });
  const { schemas } = z.toJSONSchema(registry, {
    uri: (id) => `#/$defs/${id}`,
    // What omp reads: keys it does not know are ignored, so a client may send them and must accept new ones.
    io: "input",
    unrepresentable: ({ zodSchema }) => (zodSchema._zod.def.type === "undefined" ? "any" : "throw"),
    override: (context) => {
      // No value at all (a command answered without data): nothing is valid there.
      if (context.zodSchema._zod.def.type === "undefined") context.jsonSchema.not = {};
    },
  });
  const $defs = Object.fromEntries(
    Object.entries(schemas).map(([id, schema]) => {
      const { $schema: _draft, $id: _id, ...rest } = schema as JsonSchema;
      return [id, rest];
    }),
  ) as ProtocolDocument["$defs"];
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    title: "omp session protocol",
    description:
      "omp --mode rpc reads RpcCommand and RpcUiResponse lines on stdin and writes RpcFrame lines on stdout (NDJSON). The first frame is RpcReady; get_state's protocolVersion is this document's x-protocol-version. A command's success response carries RpcResults[command] as data, a failure ErrorInfo as errorInfo.",
    "x-protocol-version": PROTOCOL_VERSION,
    $defs,
  };
}
