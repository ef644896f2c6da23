import type { RpcCommand } from "../../core/rpc/protocol.ts";
import type { SessionHost } from "../../core/session-host/host.ts";

/**
 * rpc's commands that are session host operations as they are: the session mode (plan mode), and
 * answers to question_request frames (the ask tool's questions, plan approvals).
 */
export async function hostCommand(host: SessionHost, command: Extract<RpcCommand, { type: "set_mode" | "answer_question" }>): Promise<unknown> {
  if (command.type === "set_mode") {
    await host.submit({ type: "set_mode", mode: command.mode });
    return { mode: host.mode };
  }
  await host.submit({ type: "answer_question", id: command.questionId, ...(command.answers ? { answers: command.answers } : {}), ...(command.plan !== undefined ? { plan: command.plan } : {}) });
  return { mode: host.mode };
}
