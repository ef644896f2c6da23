// The session protocol's JSON Schema and generated client cover every command, operation and
// event the zod schemas define (the lists are read from the schemas, not written here), the
// host tells its own events from the agent's by the same lists, and failures reach clients
// classified where they arose.
import { describe, expect, test } from "bun:test";
import { ProviderError } from "../../../core/ai/http/errors.ts";
import { errorInfo } from "../../../core/errors/error-kind.ts";
import { EXIT_USAGE } from "../../../core/errors/exit-codes.ts";
import { OmpError } from "../../../core/errors/omp-error.ts";
import { SessionError } from "../../../core/errors/session-error.ts";
import { AgentEvent } from "../../../core/protocol/agent-events.ts";
import { commandsOf, generateClient, methodName } from "../../../core/protocol/client-generator.ts";
import { ErrorInfo } from "../../../core/protocol/error.ts";
import { type JsonSchema, PROTOCOL_DEFINITIONS, protocolJsonSchema } from "../../../core/protocol/json-schema.ts";
import { PROTOCOL_VERSION } from "../../../core/protocol/version.ts";
import { RpcFrame } from "../../../core/rpc/frames.ts";
import { RpcCommand } from "../../../core/rpc/protocol.ts";
import { RPC_RESULTS } from "../../../core/rpc/results.ts";
import { isAgentEvent } from "../../../core/session-host/host.ts";
import { HostOp, HostOwnEvent } from "../../../core/session-host/protocol.ts";

const document = protocolJsonSchema();

/** The `type` constants of a union definition in the JSON Schema. */
function typesIn(name: keyof typeof document.$defs): string[] {
  const union = (document.$defs[name].oneOf ?? document.$defs[name].anyOf) as JsonSchema[];
  const resolve = (variant: JsonSchema): JsonSchema => (typeof variant.$ref === "string" ? document.$defs[variant.$ref.slice("#/$defs/".length) as keyof typeof document.$defs] : variant);
  return union.map((variant) => (resolve(variant).properties as Record<string, { const?: string; enum?: string[] }>).type).flatMap((type) => type!.enum ?? [type!.const!]);
}

/** The `type` values a zod discriminated union accepts. */
function zodTypes(union: { options: readonly { shape: { type: { values: Set<unknown> } } }[] }): string[] {
  return union.options.flatMap((option) => [...option.shape.type.values] as string[]);
}

describe("the protocol's JSON Schema", () => {
  test("says its version and defines every command, host operation, agent event and host event the zod schemas have", () => {
    expect(document["x-protocol-version"]).toBe(PROTOCOL_VERSION);
    const commands = zodTypes(RpcCommand);
    expect(commands.length).toBeGreaterThan(30);
    expect(typesIn("RpcCommand")).toEqual(commands);
    expect(typesIn("HostOp")).toEqual(zodTypes(HostOp));
    expect(typesIn("AgentEvent")).toEqual(zodTypes(AgentEvent));
    expect(typesIn("HostOwnEvent")).toEqual(zodTypes(HostOwnEvent));
    expect(Object.keys(document.$defs)).toEqual(Object.keys(PROTOCOL_DEFINITIONS));
    // Every command has its result defined.
    expect(Object.keys((document.$defs.RpcResults.properties as object) ?? {})).toEqual(commands);
    expect(Object.keys(RPC_RESULTS)).toEqual(commands);
    // The typed error's kinds are the classifier's.
    expect(((document.$defs.ErrorInfo.properties as Record<string, JsonSchema>).kind!.enum as string[]).sort()).toEqual([...ErrorInfo.shape.kind.options].sort());
  });

  test("the frames rpc writes include every agent event and the host's question requests", () => {
    for (const type of zodTypes(AgentEvent)) expect(RpcFrame.options.some((option) => "options" in option && zodTypes(option as never).includes(type))).toBe(true);
    const frameTypes = new Set(JSON.stringify(document.$defs.RpcFrame).match(/#\/\$defs\/\w+/g));
    expect([...frameTypes].sort()).toEqual(["#/$defs/AgentEvent", "#/$defs/QuestionRequest", "#/$defs/RpcReady", "#/$defs/RpcResponse", "#/$defs/RpcUiRequest"]);
  });

  test("the host passes the agent's events on as they are and keeps its own events apart, by the schemas' lists", () => {
    for (const type of zodTypes(AgentEvent)) expect(isAgentEvent({ type } as never)).toBe(true);
    for (const type of zodTypes(HostOwnEvent)) expect(isAgentEvent({ type } as never)).toBe(false);
  });
});

describe("the generated client", () => {
  const client = generateClient(document);

  test("has a typed method for every command, a type for every definition, and the protocol version", () => {
    const commands = commandsOf(document);
    expect(commands.map((command) => command.type)).toEqual(zodTypes(RpcCommand));
    for (const { type, needsParams } of commands) {
      const signature = new RegExp(`\\n  ${methodName(type)}\\((params${needsParams ? "" : "\\?"}: CommandParams<"${type}">)?\\): Promise<RpcResults\\["${type}"\\]>`);
      expect(client).toMatch(signature);
    }
    expect(client).toContain("  setModel(params: CommandParams<\"set_model\">): Promise<RpcResults[\"set_model\"]>");
    expect(client).toContain("  getState(): Promise<RpcResults[\"get_state\"]>");
    for (const name of Object.keys(document.$defs)) expect(client).toContain(`\nexport type ${name} = `);
    expect(client).toContain(`export const PROTOCOL_VERSION = ${PROTOCOL_VERSION};`);
  });

  test("turns the schema's shapes into TypeScript: literals, optional fields, nullable values, results without data", () => {
    expect(client).toMatch(/export type RpcReady = \{\n  type: "ready";\n  warnings\?: string\[\];\n\}/);
    expect(client).toContain("    text: string | null;");
    expect(client).toMatch(/\n  abort: undefined;\n/);
    expect(client).toContain('  kind: "auth" | "usage-limit"');
  });
});

describe("errors as clients receive them", () => {
  test("keep the kind decided where they arose, with the user's message and whether to retry", () => {
    expect(errorInfo(new SessionError("busy", "a bash command is already running"))).toEqual({ kind: "busy", message: "a bash command is already running", retryable: true });
    expect(errorInfo(new SessionError("invalid-input", "no model x/y"))).toEqual({ kind: "invalid-input", message: "no model x/y", retryable: false });
    expect(errorInfo(new ProviderError("Rate limited", { status: 429 }))).toEqual({ kind: "rate-limit", message: "Rate limited", retryable: true });
    expect(errorInfo(new ProviderError("bad key", { status: 401 }))).toMatchObject({ kind: "auth", retryable: false });
    expect(errorInfo(new SessionError("overloaded", "the summary failed: overloaded", { retryable: true }))).toMatchObject({ kind: "overloaded", retryable: true });
    expect(errorInfo(new OmpError("no session abc", { exitCode: EXIT_USAGE }))).toMatchObject({ kind: "invalid-input", retryable: false });
    expect(errorInfo(new Error("disk full"))).toEqual({ kind: "failed", message: "disk full", retryable: false });
    for (const error of [new SessionError("aborted", "stopped"), new Error("x"), "a string"]) expect(ErrorInfo.safeParse(errorInfo(error)).success).toBe(true);
  });
});
