import { z } from "zod";
import { type HostEvent, type SessionHost, isAgentEvent } from "../../core/session-host/host.ts";
import { describeError } from "../../core/errors/omp-error.ts";
import { RpcCommand, type RpcResponse, RpcUiResponse } from "../../core/rpc/protocol.ts";
import { stdout, writeLine } from "./output.ts";
import { type ApprovalAnswer, approvalOptions, decideApproval } from "../../core/tools/approval-answer.ts";
import type { RpcContext, RpcHandlers } from "./rpc/context.ts";
import { MODEL_COMMANDS } from "./rpc/model-commands.ts";
import { PROMPT_COMMANDS } from "./rpc/prompt-commands.ts";
import { SESSION_COMMANDS } from "./rpc/session-commands.ts";
import { TREE_COMMANDS } from "./rpc/tree-commands.ts";
import { SHELL_COMMANDS } from "./rpc/shell-commands.ts";

type Out = (frame: unknown) => void;

/** Every command's handler, by concept; the type makes a command without one a compile error. */
const HANDLERS: Required<RpcHandlers> = { ...PROMPT_COMMANDS, ...SESSION_COMMANDS, ...TREE_COMMANDS, ...MODEL_COMMANDS, ...SHELL_COMMANDS };

/**
 * `--mode rpc`: commands on stdin, responses and agent events on stdout, one JSON object per line.
 * A malformed line gets an error response and the process carries on. Approvals go to the host as
 * `extension_ui_request` frames, answered by `extension_ui_response` lines. stdin closing ends the
 * process once the running prompt has finished (questions asked after that are cancelled).
 */
export async function runRpcMode(host: SessionHost, onReady?: () => void): Promise<number> {
  const write: Out = writeLine;
  // bash answers as soon as its command runs, as the rest of rpc does once it is ready.
  await host.shell.warm();
  const session = new RpcSession(host, write);
  const { warnings } = host.view;
  write({ type: "ready", ...(warnings.length > 0 ? { warnings } : {}) });
  onReady?.();
  const decoder = new TextDecoder();
  let buffer = "";
  for await (const chunk of Bun.stdin.stream()) {
    buffer += decoder.decode(chunk, { stream: true });
    let newline = buffer.indexOf("\n");
    while (newline !== -1) {
      const line = buffer.slice(0, newline).trim();
      buffer = buffer.slice(newline + 1);
      if (line) await session.handle(line);
      newline = buffer.indexOf("\n");
    }
  }
  if (buffer.trim()) await session.handle(buffer.trim());
  await session.close();
  await stdout.flush();
  return 0;
}

/** An extension_ui_response as an approval answer: `confirmed` alone picks nothing. */
function uiAnswer(answer: RpcUiResponse | undefined): ApprovalAnswer {
  if (!answer) return { unanswered: "gone" };
  if (answer.timedOut) return { unanswered: "timed-out" };
  if (answer.cancelled) return { unanswered: "cancelled" };
  if (answer.value === undefined) return { unanswered: "no-choice" };
  return { picked: answer.value, ...(answer.confirmed === undefined ? {} : { confirmed: answer.confirmed }) };
}

class RpcSession implements RpcContext {
  bash: Promise<void> | undefined;
  /** Commands answered when their work ends (model listing, compaction); the loop reads on meanwhile. */
  private readonly background = new Set<Promise<void>>();
  compacting = false;
  private uiSerial = 0;
  /** Questions sent to the host, by request id, waiting for its extension_ui_response. */
  private readonly questions = new Map<string, (answer: RpcUiResponse | undefined) => void>();
  private closing = false;

  constructor(
    readonly host: SessionHost,
    private readonly write: Out,
  ) {
    // rpc's protocol is the agent's events as they are; approvals become extension_ui_requests.
    host.subscribe((event) => {
      if (isAgentEvent(event)) write(event);
      else if (event.type === "approval_request") this.ask(event);
      else if (event.type === "question_request") this.closing ? host.questions?.cancelAll("the host has gone (stdin closed)") : write(event);
    });
  }

  /** stdin closed: the running prompt and bash command finish (nobody is left to answer questions), then the session is closed. */
  async close(): Promise<void> {
    this.closing = true;
    this.host.questions?.cancelAll("the host has gone (stdin closed)");
    for (const answer of this.questions.values()) answer(undefined);
    this.questions.clear();
    await Promise.all([this.host.view.idle(), this.bash, ...this.background]);
    await this.host.close();
  }

  /** An approval, asked of the host in the original's extension UI protocol. */
  private ask(request: Extract<HostEvent, { type: "approval_request" }>): void {
    const decide = (decision: { allow: boolean; remember?: boolean; reason?: string }) => void this.host.submit({ type: "answer_approval", id: request.id, ...decision });
    if (this.closing) return decide({ allow: false, reason: "the host that could approve it has gone (stdin closed)" });
    const id = `ui_${++this.uiSerial}`;
    const options = approvalOptions(`Always allow ${request.rememberAs ?? request.toolName}${request.rememberFor === "project" ? " in this project" : ""}`);
    this.write({
      type: "extension_ui_request",
      id,
      method: "select",
      title: request.kind === "sandbox" ? "Run outside the sandbox?" : request.kind === "trust" ? "Trust the project's changed configuration?" : `Allow ${request.toolName}?`,
      // A change is shown as the diff it writes: what the user approves is what happens.
      message: request.changes ? `${request.summary}\n${request.changes.map((change) => change.diff).join("")}` : request.summary,
      options: options.map((option) => option.label),
      toolName: request.toolName,
      effect: request.effect,
      input: request.input,
      ...(request.kind === "sandbox" || request.kind === "trust" ? { kind: request.kind } : {}),
      ...(request.changes ? { changes: request.changes } : {}),
    });
    this.questions.set(id, (answer) => decide(decideApproval(options, uiAnswer(answer))));
  }

  // Arrow functions: handlers take them apart ({ host, respond }).
  readonly respond = (command: string, id: string | undefined, data?: unknown): void => {
    const frame: RpcResponse = { ...(id === undefined ? {} : { id }), type: "response", command, success: true, ...(data === undefined ? {} : { data }) };
    this.write(frame);
  };

  readonly fail = (command: string, id: string | undefined, error: unknown): void => {
    const frame: RpcResponse = { ...(id === undefined ? {} : { id }), type: "response", command, success: false, error: typeof error === "string" ? error : describeError(error) };
    this.write(frame);
  };

  async handle(line: string): Promise<void> {
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch (error) {
      this.fail("parse", undefined, `not JSON: ${describeError(error)}`);
      return;
    }
    if ((raw as { type?: unknown } | null)?.type === "extension_ui_response") {
      const answer = RpcUiResponse.safeParse(raw);
      if (!answer.success) return this.fail("extension_ui_response", undefined, `invalid extension_ui_response: ${z.prettifyError(answer.error)}`);
      this.questions.get(answer.data.id)?.(answer.data);
      this.questions.delete(answer.data.id);
      return;
    }
    const parsed = RpcCommand.safeParse(raw);
    if (!parsed.success) {
      const type = (raw as { type?: unknown } | null)?.type;
      const id = (raw as { id?: unknown } | null)?.id;
      const known = RpcCommand.options.map((option) => option.shape.type.value);
      const error =
        typeof type !== "string"
          ? `a command is a JSON object with a string "type", one of: ${known.join(", ")}`
          : !known.includes(type as RpcCommand["type"])
            ? `unknown command ${JSON.stringify(type)}; known commands: ${known.join(", ")}`
            : `invalid ${type} command: ${z.prettifyError(parsed.error)}`;
      this.fail(typeof type === "string" ? type : "parse", typeof id === "string" ? id : undefined, error);
      return;
    }
    const command = parsed.data;
    try {
      await this.dispatch(command);
    } catch (error) {
      this.fail(command.type, command.id, error);
    }
  }

  later(command: string, id: string | undefined, work: () => Promise<unknown>): Promise<void> {
    const done = work().then(
      (data) => this.respond(command, id, data),
      (error) => this.fail(command, id, error),
    );
    const tracked = done.finally(() => this.background.delete(tracked));
    this.background.add(tracked);
    return tracked;
  }

  private async dispatch(command: RpcCommand): Promise<void> {
    const startsRun = ["prompt", "steer", "follow_up", "abort_and_prompt", "new_session", "switch_session"].includes(command.type);
    if (this.compacting && startsRun) throw new Error("the conversation is being compacted: wait for the compact response, or send abort");
    const handler = HANDLERS[command.type] as (rpc: RpcContext, command: RpcCommand) => Promise<void>;
    await handler(this, command);
  }
}
