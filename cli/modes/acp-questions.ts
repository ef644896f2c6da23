import * as acp from "@agentclientprotocol/sdk";
import { describeError } from "../../core/errors/omp-error.ts";
import type { HostEvent, SessionHost } from "../../core/session-host/host.ts";
import { PLAN_CHOICES } from "../../core/session/modes.ts";

type QuestionEvent = Extract<HostEvent, { type: "question_request" }>;

const LATER = "later";

/**
 * Questions (the ask tool) and plans (exit_plan_mode) asked through what ACP offers every client:
 * session/request_permission, one question at a time, its options as permission options and
 * "Answer later" as the rejection. ACP has no stable way to type an answer, so a question
 * without options, or the "other" answer, goes back to the model as unanswered (it asks in its
 * reply instead); a multiple-choice question takes one option. A plan's options are approve,
 * approve with auto-accepted edits, and keep planning; the plan itself is the call's content.
 */
export async function askInEditor(client: acp.AgentContext, sessionId: string, host: SessionHost, request: QuestionEvent): Promise<void> {
  const answer = (answers?: string[][]) => host.submit({ type: "answer_question", id: request.id, ...(answers ? { answers } : {}) }).catch(() => undefined);
  try {
    const answers: string[][] = [];
    for (const [index, question] of request.questions.entries()) {
      const choices = question.options ?? [];
      if (choices.length === 0) return void (await answer());
      const plan = request.kind === "plan";
      const options: acp.PermissionOption[] = [
        ...choices.map((name, i): acp.PermissionOption => ({ optionId: String(i), name, kind: plan && name === PLAN_CHOICES.acceptEdits ? "allow_always" : plan && name === PLAN_CHOICES.keepPlanning ? "reject_once" : "allow_once" })),
        ...(plan ? [] : [{ optionId: LATER, name: "Answer later", kind: "reject_once" as const }]),
      ];
      const text = plan ? request.plan : undefined;
      const response = await client.request(acp.methods.client.session.requestPermission, {
        sessionId,
        toolCall: {
          toolCallId: request.toolCallId ?? `${request.id}_${index}`,
          title: question.question + (question.multiple ? " (one choice here)" : ""),
          kind: plan ? "think" : "other",
          ...(text ? { content: [{ type: "content" as const, content: { type: "text" as const, text } }] } : {}),
        },
        options,
      });
      if (response.outcome.outcome === "cancelled" || response.outcome.optionId === LATER) return void (await answer());
      answers.push([choices[Number(response.outcome.optionId)] ?? ""]);
    }
    await answer(answers);
  } catch (error) {
    process.stderr.write(`omp: the editor could not be asked: ${describeError(error)}\n`);
    await answer();
  }
}
