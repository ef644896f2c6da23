import { z } from "zod";
import { ImageContent } from "../ai/messages-schema.ts";
import { ThinkingLevel } from "../ai/model-schema.ts";
import { SESSION_MODES } from "../session/modes.ts";

/**
 * The commands `omp --mode rpc` reads on stdin, one JSON object per line, with the names and
 * fields of omp's RPC protocol. Every command may carry an `id`, echoed in its response.
 */
const id = { id: z.string().optional() };
const message = { message: z.string(), images: z.array(ImageContent).optional() };

export const RpcCommand = z.discriminatedUnion("type", [
  z.object({ ...id, type: z.literal("prompt"), ...message, streamingBehavior: z.enum(["steer", "followUp"]).optional() }),
  z.object({ ...id, type: z.literal("steer"), ...message }),
  z.object({ ...id, type: z.literal("follow_up"), ...message }),
  z.object({ ...id, type: z.literal("abort") }),
  z.object({ ...id, type: z.literal("abort_and_prompt"), ...message }),
  z.object({ ...id, type: z.literal("new_session") }),
  z.object({ ...id, type: z.literal("switch_session"), sessionPath: z.string() }),
  z.object({ ...id, type: z.literal("get_state") }),
  z.object({ ...id, type: z.literal("get_messages") }),
  z.object({ ...id, type: z.literal("get_last_assistant_text") }),
  z.object({ ...id, type: z.literal("set_model"), provider: z.string(), modelId: z.string() }),
  z.object({ ...id, type: z.literal("get_available_models") }),
  z.object({ ...id, type: z.literal("set_thinking_level"), level: ThinkingLevel }),
  z.object({ ...id, type: z.literal("cycle_thinking_level") }),
  z.object({ ...id, type: z.literal("cycle_model") }),
  z.object({ ...id, type: z.literal("set_steering_mode"), mode: z.enum(["all", "one-at-a-time"]) }),
  z.object({ ...id, type: z.literal("set_follow_up_mode"), mode: z.enum(["all", "one-at-a-time"]) }),
  z.object({ ...id, type: z.literal("compact"), customInstructions: z.string().optional() }),
  z.object({ ...id, type: z.literal("set_auto_compaction"), enabled: z.boolean() }),
  z.object({ ...id, type: z.literal("get_session_stats") }),
  z.object({ ...id, type: z.literal("bash"), command: z.string() }),
  z.object({ ...id, type: z.literal("abort_bash") }),
  z.object({ ...id, type: z.literal("set_session_name"), name: z.string() }),
  z.object({ ...id, type: z.literal("export_html"), outputPath: z.string().optional() }),
  z.object({ ...id, type: z.literal("branch"), entryId: z.string().min(1) }),
  /** Back to before a user message (scope default both); dryRun: only the plan of the files. */
  z.object({ ...id, type: z.literal("rewind"), entryId: z.string().min(1), scope: z.enum(["conversation", "files", "both"]).optional(), dryRun: z.boolean().optional() }),
  z.object({ ...id, type: z.literal("get_available_commands") }),
  z.object({ ...id, type: z.literal("get_tree") }),
  z.object({ ...id, type: z.literal("navigate"), entryId: z.string().min(1) }),
  z.object({ ...id, type: z.literal("get_branch_messages") }),
  z.object({ ...id, type: z.literal("set_label"), entryId: z.string().min(1), label: z.string().optional() }),
  z.object({ ...id, type: z.literal("fork") }),
  z.object({ ...id, type: z.literal("handoff"), customInstructions: z.string().optional() }),
  z.object({ ...id, type: z.literal("get_jobs") }),
  z.object({ ...id, type: z.literal("kill_job"), jobId: z.number().int() }),
  z.object({ ...id, type: z.literal("set_mode"), mode: z.enum(SESSION_MODES) }),
  /** The answer to a question_request frame (its `id` is `questionId` here); no `answers`: dismissed, the model hears it went unanswered. */
  z.object({ ...id, type: z.literal("answer_question"), questionId: z.string(), answers: z.array(z.array(z.string())).optional(), plan: z.string().optional() }),
]);
export type RpcCommand = z.infer<typeof RpcCommand>;

/**
 * The host's answer to an `extension_ui_request` (an approval, a question): the chosen value, a
 * yes/no, or a cancellation. Not a command: it gets no response, and an unknown id is ignored.
 */
export const RpcUiResponse = z.object({
  type: z.literal("extension_ui_response"),
  id: z.string(),
  value: z.string().optional(),
  confirmed: z.boolean().optional(),
  cancelled: z.boolean().optional(),
  timedOut: z.boolean().optional(),
});
export type RpcUiResponse = z.infer<typeof RpcUiResponse>;
