import type { ProviderFailure } from "../ai/failure.ts";
import type { Message } from "../ai/messages.ts";
import type { Model, ThinkingLevel } from "../ai/model.ts";
import type { StreamFunction } from "../ai/stream.ts";
import type { LspSession } from "../lsp/session.ts";
import type { SessionWriter } from "../session/writer.ts";
import type { ApprovalGate } from "../tools/approval.ts";
import type { EditorBridge, Questioner, Tool } from "../tools/types.ts";
import type { WebSettings } from "../web/default-settings.ts";
import type { SessionMode } from "../session/modes.ts";
import type { ExtensionsFactory } from "../extensions/agent-extensions.ts";
import type { Facts, RequestFrame } from "./request-frame.ts";

export interface AgentOptions {
  cwd: string;
  model: Model;
  apiKey?: string;
  thinking: ThinkingLevel;
  tools: Tool[];
  gate: ApprovalGate;
  /**
   * Built once per session; see system-prompt.ts. May still be on its way (it waits for git):
   * the first request waits for it, the interactive mode's first frame does not.
   */
  systemPrompt: string | Promise<string>;
  /** Today's date and the repository's state, as the system prompt of a new session states them. */
  facts?: Promise<Facts>;
  /**
   * A resumed session's stored system prompt and tools, sent again unchanged (see request-frame.ts),
   * and the facts the model was last told; the first prompt of the run notes what changed since.
   */
  frame?: { frame: RequestFrame; facts: Facts };
  /** A resumed session from before frames were stored: its signed thinking no longer matches what will be sent. */
  dropThinking?: boolean;
  /** Absent with --no-session. */
  writer?: SessionWriter;
  /** A resumed conversation. */
  messages?: Message[];
  /** The session entry id of each resumed message ("" where there is none, as for a compaction summary). */
  messageEntryIds?: string[];
  artifactsDir: string;
  /** Read at each check, so /settings changes to it hold for the next turn. */
  compaction: { enabled: boolean; reserveTokens: number; keepRecentTokens: number; thresholdPercent?: number };
  /** The session's settings, for tools that read one at call time (ToolContext.settings). */
  settings?: Readonly<import("../config/settings-schema.ts").Settings>;
  maxRetries: number;
  /** The `bash.timeoutSeconds` setting. */
  bashTimeoutSeconds?: number;
  /** `bash.autoBackgroundSeconds` and `bash.maxLogBytes`. */
  shell?: { autoBackgroundSeconds?: number; maxLogBytes?: number };
  /** The `web` settings (web_fetch, web_search, URLs in read). */
  web?: WebSettings;
  /** What the model's commands are confined to (core/sandbox); absent: not confined. */
  sandbox?: import("../sandbox/policy.ts").SandboxPolicy;
  /** `retry.baseDelayMs` and `retry.idleTimeoutSeconds`, for every request. */
  retry?: { baseDelayMs: number; idleTimeoutMs: number };
  /** Model requests per run; undefined = no limit. */
  maxTurns?: number;
  /** Record the model in the session before the next message (a new session, or a resume on another model). */
  announceModel?: boolean;
  /** Likewise the thinking level, so that a resume comes back on it. */
  announceThinking?: boolean;
  /** Secret values (API keys) that must not reach any file this agent writes, besides the model's key. */
  secrets?: string[];
  /** Called with a failed reply's failure before anything was streamed: another credential to retry with, an error to show instead, a hint to add to it (where a refused key came from), or undefined. */
  rotateCredential?: (failure: ProviderFailure) => Promise<{ apiKey: string; model?: Model } | { error: string } | { hint: string } | undefined>;
  /** What the user must know about how the session was opened (a fork of a session open elsewhere). */
  warnings?: string[];
  /** The `<memories>` block for a new session's first prompt, recalled with its text (core/memory); absent: memory off. */
  recallMemories?: (prompt: string) => Promise<string | undefined>;
  /** Hooks and extensions (see core/extensions/agent-extensions.ts). */
  extensions?: ExtensionsFactory;
  /** 0 for the session's agent, 1 for its subagents, and so on; a subagent's Stop hooks are SubagentStop hooks. */
  depth?: number;
  /** An editor's files and terminal for the tools (ACP). */
  editor?: EditorBridge;
  /** Finds a model by pattern, for subagents whose definition names one. */
  selectModel?: (pattern: string) => Promise<{ model: Model; apiKey: string | undefined }>;
  /** The model `modelRoles` names for a side job (`smol`: compaction summaries, titles, subagents without a model); undefined: this agent's own. */
  roleModel?: (role: string) => Promise<{ model: Model; apiKey: string | undefined } | undefined>;
  /** Called with each model response's headers (the rate-limit state some providers send). */
  onResponseHeaders?: (model: Model, headers: Headers) => void;
  /** Called with every model reply's usage, for the usage store (`omp usage`, `omp stats`). */
  recordUsage?: (model: Model, usage: import("../ai/messages.ts").Usage) => void;
  /** The session's language servers, shared with its subagents and stopped when the session ends. */
  lsp?: LspSession;
  /** The `checkpoints` settings; absent or disabled: file changes are not recorded. */
  checkpoints?: { enabled: boolean; maxBytes: number };
  /** The session's stream rules (TTSR), registered; absent when none are. */
  streamRules?: import("../rules/ttsr.ts").TtsrManager;
  /** A subagent's file changes are its parent's tool call's: recorded there, so rewinding the parent undoes them. */
  checkpointsOf?: import("../session/checkpoints/target.ts").CheckpointTarget;
  /** Asks the user (the ask tool, plan approval); absent: nobody to ask. */
  question?: Questioner;
  /** A resumed session's mode (its last mode_change entry); the session host applies it. */
  mode?: SessionMode;
  /** Where replies come from: the model's wire API (core/ai's stream) unless another source is given (the agent's unit tests). */
  stream?: StreamFunction;
}

/** How many queued steering or follow-up messages the next turn takes. */
export type QueueMode = "one-at-a-time" | "all";
