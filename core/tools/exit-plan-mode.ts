import { declared } from "./declare.ts";
import { exitPlanMode as exitPlanModeDeclaration } from "./declarations/exit-plan-mode.ts";
import { z } from "zod";
import { PLAN_CHOICES, approvedMode } from "../session/modes.ts";
import { textResult } from "./format.ts";
import { renderTodos } from "./todo.ts";
import type { ToolDefinition } from "./types.ts";

const schema = z.object({
  plan: z.string().min(1).describe("Markdown"),
  steps: z.array(z.string().min(1)).max(30).describe("Short imperative todo items"),
});

/**
 * Plan mode's way out: the plan goes to the user as a plan request on the host's stream. The host
 * switches the mode when the user approves; the model then carries the plan out in the same run,
 * with its steps as the todo list. Offered only while the session is in plan mode.
 */
export const exitPlanModeTool: ToolDefinition<typeof schema> = {
  ...declared(exitPlanModeDeclaration),
  schema,
  async execute(input, context) {
    if (!context.question) return textResult("Nobody can approve a plan in this run: end your turn with the plan as your reply.");
    const answer = await context.question({
      kind: "plan",
      questions: [{ question: "Approve this plan?", options: Object.values(PLAN_CHOICES) }],
      plan: input.plan,
      ...(context.toolCallId ? { toolCallId: context.toolCallId } : {}),
    });
    if ("unanswered" in answer) return textResult(`The user has not decided on the plan (${answer.unanswered}). Stay in plan mode: end your turn; the user will reply.`, { approved: false });
    const choice = answer.answers[0]?.[0];
    const mode = approvedMode(choice);
    if (!mode) {
      const feedback = choice && choice !== PLAN_CHOICES.keepPlanning ? ` Their feedback: ${choice}` : "";
      return textResult(`The user did not approve the plan.${feedback} Stay in plan mode, revise the plan and present it again.`, { approved: false });
    }
    const todos = input.steps.map((content) => ({ content, status: "pending" as const }));
    const edited = answer.plan !== undefined && answer.plan !== input.plan;
    const plan = edited ? `\n\nThe user edited the plan; follow this version:\n${answer.plan}` : "";
    return textResult(
      `The user approved the plan; the session is in ${mode} mode now. Carry it out, keeping this todo list up to date with the todo tool.\n\n${renderTodos(todos)}${plan}`,
      { approved: true, mode, todos },
    );
  },
};
