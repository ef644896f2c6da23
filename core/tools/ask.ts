import { declared } from "./declare.ts";
import { ask as askDeclaration } from "./declarations/ask.ts";
import { z } from "zod";
import { errorResult, textResult } from "./format.ts";
import type { Question, ToolDefinition } from "./types.ts";

const schema = z.object({
  questions: z
    .array(
      z.object({
        question: z.string(),
        header: z.string().optional().describe("Short tab label"),
        // Claude Code's shape ({label, description}) is taken as it is.
        options: z
          .array(z.union([z.string(), z.object({ label: z.string(), description: z.string().optional() })]))
          .optional()
          .describe("Omit for free text; {label, description} explains a choice"),
        multiple: z.boolean().optional().describe("Pick several"),
      }),
    )
    .min(1)
    .max(4)
    .describe("In order"),
});

/**
 * The model's clarifying questions, asked through the session host (a picker in the terminal,
 * question_request in rpc, the editor's permission prompt over ACP). Offered only where someone
 * can answer; an unanswered question (dismissed, timed out) never holds the run up.
 */
export const askTool: ToolDefinition<typeof schema> = {
  ...declared(askDeclaration),
  schema,
  async execute(input, context) {
    if (!context.question) return errorResult("Nobody can answer questions in this run: decide yourself and say what you assumed.");
    const answer = await context.question({ kind: "ask", questions: input.questions.map(asked), ...(context.toolCallId ? { toolCallId: context.toolCallId } : {}) });
    if ("unanswered" in answer) return textResult(`The user did not answer (${answer.unanswered}). Proceed on your best judgement and say what you assumed.`, { unanswered: answer.unanswered });
    const lines = input.questions.map((q, index) => `${q.question}\n→ ${(answer.answers[index] ?? []).join("; ") || "(no answer)"}`);
    return textResult(lines.join("\n\n"), { answers: answer.answers });
  },
};

/** A question as the front ends take it: the options' labels, their descriptions beside them. */
function asked(question: z.infer<typeof schema>["questions"][number]): Question {
  const options = question.options?.map((option) => (typeof option === "string" ? { label: option } : option));
  const described = options?.some((option) => option.description);
  return {
    question: question.question,
    ...(question.header ? { header: question.header } : {}),
    ...(options ? { options: options.map((option) => option.label) } : {}),
    ...(options && described ? { descriptions: options.map((option) => option.description ?? "") } : {}),
    ...(question.multiple ? { multiple: true } : {}),
  };
}
