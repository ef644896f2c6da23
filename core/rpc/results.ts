import { z } from "zod";
import { Message } from "../ai/messages-schema.ts";
import { SESSION_MODES } from "../session/modes.ts";
import type { RpcCommand } from "./protocol.ts";

/**
 * What each rpc command answers with: the `data` of its success response. Keyed by every
 * command type (the `satisfies` makes a command without one a compile error), so the JSON Schema
 * and the generated client give every method its result type.
 */

const Model = z.object({ provider: z.string(), id: z.string() });
const Mode = z.enum(SESSION_MODES);
const sessionFile = { sessionFile: z.string().optional() };
const messageCount = { messageCount: z.number().int() };
const Invoked = z.object({ kind: z.string(), name: z.string(), path: z.string().optional() });
const None = z.undefined();

/** A prompt's answer: whether it started a run, or was queued (`queued`) or done by a command without the model (`invoked`). */
const PromptStarted = z.object({
  agentInvoked: z.boolean(),
  queued: z.enum(["steer", "followUp"]).optional(),
  invoked: Invoked.optional(),
  warnings: z.array(z.string()).optional(),
});

const SessionSwitched = z.object({ ...sessionFile, ...messageCount, model: Model, thinkingLevel: z.string(), warnings: z.array(z.string()) });

const Job = z.object({
  id: z.number().int(),
  command: z.string(),
  pid: z.number().int(),
  pty: z.boolean(),
  running: z.boolean(),
  state: z.string(),
  exitCode: z.number().int().nullable(),
  startedAt: z.string(),
  outputBytes: z.number().int(),
  logPath: z.string().optional(),
});

const TreeNode = z.object({ id: z.string(), parentId: z.string().nullable(), type: z.string(), timestamp: z.string(), role: z.string().optional(), text: z.string(), label: z.string().optional() });

const RewindFiles = { changedOutside: z.array(z.object({ path: z.string() })), notRestorable: z.array(z.object({ path: z.string().optional(), reason: z.string() })) };

export const RPC_RESULTS = {
  prompt: PromptStarted,
  steer: PromptStarted.or(None),
  follow_up: PromptStarted.or(None),
  abort: None,
  abort_and_prompt: None,
  new_session: SessionSwitched,
  switch_session: SessionSwitched,
  get_state: z.object({
    model: Model,
    thinkingLevel: z.string(),
    isStreaming: z.boolean(),
    steeringMode: z.enum(["all", "one-at-a-time"]),
    followUpMode: z.enum(["all", "one-at-a-time"]),
    ...sessionFile,
    sessionId: z.string().optional(),
    autoCompactionEnabled: z.boolean(),
    ...messageCount,
    queuedMessageCount: z.number().int(),
    warnings: z.array(z.string()),
    mode: Mode,
    contextUsage: z.object({ tokens: z.number(), contextWindow: z.number(), percent: z.number() }),
    /** The session protocol's version (core/protocol/version.ts), for a client to check before it relies on anything else. */
    protocolVersion: z.number().int(),
  }),
  get_messages: z.object({ messages: z.array(Message) }),
  get_last_assistant_text: z.object({ text: z.string().nullable() }),
  set_model: z.object({ provider: z.string(), id: z.string(), thinkingLevel: z.string() }),
  get_available_models: z.object({
    models: z.array(z.object({ provider: z.string(), id: z.string(), name: z.string(), api: z.string(), contextWindow: z.number(), reasoning: z.boolean(), cost: z.unknown() })),
  }),
  set_thinking_level: None,
  cycle_thinking_level: z.object({ level: z.string() }).nullable(),
  cycle_model: z.object({ model: Model, thinkingLevel: z.string(), isScoped: z.boolean() }).nullable(),
  set_steering_mode: None,
  set_follow_up_mode: None,
  compact: z.object({ compacted: z.boolean(), tokens: z.number() }),
  set_auto_compaction: None,
  get_session_stats: z.object({
    ...sessionFile,
    sessionId: z.string().optional(),
    userMessages: z.number().int(),
    assistantMessages: z.number().int(),
    toolResults: z.number().int(),
    totalMessages: z.number().int(),
    tokens: z.object({ input: z.number(), output: z.number(), cacheRead: z.number(), cacheWrite: z.number(), total: z.number() }),
    cost: z.number(),
  }),
  bash: z.object({ output: z.string(), isError: z.boolean(), details: z.unknown().optional() }),
  abort_bash: z.object({ aborted: z.boolean() }),
  set_session_name: None,
  export_html: z.object({ path: z.string(), ...messageCount }),
  branch: z.object({ text: z.string(), cancelled: z.boolean(), ...messageCount, ...sessionFile }),
  /** dryRun: the files that would go back; otherwise what happened, and the conversation's new state. */
  rewind: z.union([
    z.object({ restore: z.array(z.string()), ...RewindFiles }),
    z.object({ files: z.object({ restored: z.array(z.string()), ...RewindFiles }).optional(), text: z.string().optional(), ...sessionFile, ...messageCount }),
  ]),
  get_available_commands: z.object({
    commands: z.array(z.object({ name: z.string(), description: z.string(), argumentHint: z.string().optional(), kind: z.enum(["command", "extension", "mcp", "skill"]), location: z.string(), path: z.string() })),
  }),
  get_tree: z.object({ leafId: z.string().nullable(), nodes: z.array(TreeNode) }),
  navigate: z.object({ leafId: z.string().nullable(), text: z.string().optional(), ...messageCount, ...sessionFile }),
  get_branch_messages: z.object({ messages: z.array(z.object({ entryId: z.string(), text: z.string() })) }),
  set_label: None,
  fork: z.object({ ...sessionFile, parentSession: z.string().optional(), ...messageCount }),
  handoff: z.object({ document: z.string(), ...sessionFile, ...messageCount }),
  get_jobs: z.object({ jobs: z.array(Job) }),
  kill_job: z.object({ killed: z.boolean(), job: Job }),
  set_mode: z.object({ mode: Mode }),
  answer_question: z.object({ mode: Mode }),
} satisfies Record<RpcCommand["type"], z.ZodType>;
