import { z } from "zod";
import { THINKING_LEVELS } from "../ai/model.ts";
import { SESSION_MODES } from "../session/modes.ts";
import type { ChangePreview as ChangePreviewType } from "../tools/change-preview.ts";

/**
 * The session host's wire: operations a front end submits and the events the host adds to the
 * agent's own (events.ts), as zod schemas. Front ends that take operations from outside (ACP,
 * tests) validate here; the host itself imports only the types, so the start-up path stays free
 * of zod.
 */

export { SESSION_MODES };
export const SessionMode = z.enum(SESSION_MODES);
export type SessionMode = z.infer<typeof SessionMode>;

const Content = z.array(
  z.discriminatedUnion("type", [
    z.object({ type: z.literal("text"), text: z.string() }),
    z.object({ type: z.literal("image"), data: z.string(), mimeType: z.string() }),
  ]),
);

export const SESSION_CHANGES = ["new", "resume", "branch", "fork", "handoff"] as const;
export type SessionChange = (typeof SESSION_CHANGES)[number];

export const HostOp = z.discriminatedUnion("type", [
  /** A new user message; a `/command` or `/skill:name` first is expanded as in every mode. */
  z.object({ type: z.literal("prompt"), content: Content }),
  z.object({ type: z.literal("steer"), content: Content }),
  z.object({ type: z.literal("follow_up"), content: Content }),
  z.object({ type: z.literal("abort") }),
  /** A model pattern as `--model` takes it (`provider/id`, an id, `opus:high`). */
  z.object({ type: z.literal("set_model"), model: z.string().min(1) }),
  z.object({ type: z.literal("set_thinking"), level: z.enum(THINKING_LEVELS) }),
  z.object({ type: z.literal("set_mode"), mode: SessionMode }),
  z.object({ type: z.literal("compact"), instructions: z.string().optional() }),
  /** Back to before a user message of this session (its entry id). */
  z.object({ type: z.literal("branch"), entryId: z.string().min(1) }),
  /** To any entry of this session's tree: before a user message (its text comes back), after any other. */
  z.object({ type: z.literal("navigate"), entryId: z.string().min(1) }),
  /** A label on an entry of the tree; empty clears it. */
  z.object({ type: z.literal("set_label"), entryId: z.string().min(1), label: z.string() }),
  /** The path to the current leaf, copied into a new session that continues from here. */
  z.object({ type: z.literal("fork") }),
  /** A model-written brief of this session seeds a new, linked session; `goal` says what it should focus on. */
  z.object({ type: z.literal("handoff"), goal: z.string().optional() }),
  /** Back to before a user message: the conversation (a new branch), the files omp changed since (changes made outside omp are reported, not overwritten), or both. */
  z.object({ type: z.literal("rewind"), entryId: z.string().min(1), scope: z.enum(["conversation", "files", "both"]) }),
  /** A new session, or the session file at `path`. */
  z.object({ type: z.literal("switch_session"), path: z.string().optional() }),
  /** The answer to an approval_request event. */
  /** `edited`: allowed as the user edited it, the whole new text of the one file the call changes. */
  z.object({ type: z.literal("answer_approval"), id: z.string(), allow: z.boolean(), remember: z.boolean().optional(), reason: z.string().optional(), edited: z.string().optional() }),
  /**
   * The answer to a question_request: per question the options chosen or the user's own text.
   * Without `answers` the user dismissed it ("answer later"): the model hears it went unanswered.
   * For a plan: the first answer is one of PLAN_CHOICES (or feedback in the user's words), `plan` the plan as the user edited it.
   */
  z.object({ type: z.literal("answer_question"), id: z.string(), answers: z.array(z.array(z.string())).optional(), plan: z.string().optional() }),
  // The user's own shell commands (`!cmd`, rpc bash): one at a time; unless `share` is false (`!!cmd`) the output goes to the model with the next message.
  z.object({ type: z.literal("bash"), command: z.string().min(1), share: z.boolean().optional() }),
  z.object({ type: z.literal("abort_bash") }),
]);
export type HostOp = z.infer<typeof HostOp>;

/** One question: single choice (`options`), several (`multiple`), or free text (no options); an option-less "other" answer is always allowed. */
export const Question = z.object({
  question: z.string(),
  header: z.string().optional(),
  options: z.array(z.string()).optional(),
  /** What each option means, by index ("" for none). */
  descriptions: z.array(z.string()).optional(),
  multiple: z.boolean().optional(),
});

const Presentation = z.object({
  title: z.string(),
  kind: z.enum(["read", "edit", "delete", "move", "search", "execute", "think", "fetch", "other"]),
  locations: z.array(z.object({ path: z.string(), line: z.number().optional() })),
  diffs: z.array(z.object({ path: z.string(), oldText: z.string().nullable(), newText: z.string() })).optional(),
  command: z.string().optional(),
});

/** A file change an approval is about (core/tools/change-preview.ts). */
const ChangePreview: z.ZodType<ChangePreviewType> = z.object({
  path: z.string(),
  shown: z.string(),
  op: z.enum(["create", "update", "delete"]),
  oldText: z.string().nullable(),
  newText: z.string().nullable(),
  diff: z.string(),
  added: z.number(),
  removed: z.number(),
});

/** What the host says besides the agent's events (message and tool-call deltas, results with details, agent_end). */
export const HostOwnEvent = z.discriminatedUnion("type", [
  /** A tool call about to run, as it presents itself (tool_execution_start follows with the same id). */
  z.object({ type: z.literal("tool_call"), toolCallId: z.string(), toolName: z.string(), input: z.unknown(), presentation: Presentation }),
  /** A question for the user; answered with answer_approval. */
  z.object({
    type: z.literal("approval_request"),
    id: z.string(),
    toolName: z.string(),
    effect: z.enum(["read", "write", "exec", "network"]),
    input: z.unknown(),
    summary: z.string(),
    outside: z.array(z.string()).optional(),
    toolCallId: z.string().optional(),
    /** `sandbox`: the command failed in the sandbox; allowing runs it again outside. `trust`: the project's code-running files changed since it was trusted. `egress`: a request to a host the user has not named (summary: the host and what goes there). */
    kind: z.enum(["call", "sandbox", "trust", "egress"]).optional(),
    /** What "always" covers, in words ("commands starting with \"npm test\""). */
    rememberAs: z.string().optional(),
    /** How long "always" holds: this session (absent), or this project from now on. */
    rememberFor: z.enum(["session", "project"]).optional(),
    /** For a call that writes files: exactly what it writes, per file (the whole texts and a unified diff). */
    changes: z.array(ChangePreview).optional(),
    presentation: Presentation,
  }),
  /**
   * A question for the user (the ask tool), or a plan to approve (kind plan, from exit_plan_mode);
   * answered with answer_question. Unanswered after `timeoutMs`, the model hears the user did not answer.
   */
  z.object({
    type: z.literal("question_request"),
    id: z.string(),
    kind: z.enum(["ask", "plan"]),
    questions: z.array(Question),
    plan: z.string().optional(),
    toolCallId: z.string().optional(),
    timeoutMs: z.number().optional(),
  }),
  z.object({ type: z.literal("mode_changed"), mode: SessionMode }),
  z.object({ type: z.literal("model_changed"), provider: z.string(), id: z.string(), thinking: z.string() }),
  /** Another session is now the host's: new, resumed, another leaf of the same file (branch), a fork, or a handoff's new session. */
  z.object({ type: z.literal("session_changed"), reason: z.enum(SESSION_CHANGES), sessionId: z.string(), path: z.string().optional() }),
  /** After each run: the session's tokens so far and how full the context window is. */
  z.object({
    type: z.literal("usage"),
    input: z.number(),
    output: z.number(),
    cacheRead: z.number(),
    cacheWrite: z.number(),
    cost: z.number(),
    contextTokens: z.number(),
    contextWindow: z.number(),
  }),
]);
export type HostOwnEvent = z.infer<typeof HostOwnEvent>;
