import type { Refusal } from "../sandbox/denial.ts";
import type { z } from "zod";
import type { ImageContent, TextContent } from "../ai/messages.ts";
import type { FileReadStore } from "./edit/read-store.ts";
import type { Settings } from "../config/settings-schema.ts";
import type { ApprovalOutcome } from "./approval.ts";
import type { ChangePreview } from "./change-preview.ts";
import type { LspSession } from "../lsp/session.ts";
import type { Subagents } from "./subagents.ts";
import type { WebSettings } from "../web/default-settings.ts";

/**
 * What a tool may do, for approval modes: under `write`, everything but `read` needs approval
 * (`network`: a request that can carry data out); under `always-ask`, all.
 */
export type ToolEffect = "read" | "write" | "exec" | "network";

export interface ToolContext {
  /** The session's working directory; relative paths resolve against it. */
  cwd: string;
  signal: AbortSignal;
  /** Where a tool may save large output for the model to read later (created on demand). */
  artifactsDir: string;
  /** Streams partial output (bash) to UIs while the tool runs. */
  onUpdate?: (text: string) => void;
  /** Applied to whatever the tool saves to disk itself (bash's full-output logs): removes the secrets in use. */
  redact?: (text: string) => string;
  /** The `bash.timeoutSeconds` setting: bash's timeout when the call gives none. */
  bashTimeoutSeconds?: number;
  /** `bash.autoBackgroundSeconds` and `bash.maxLogBytes`. */
  shell?: { autoBackgroundSeconds?: number; maxLogBytes?: number };
  /** The model's id for this call. */
  toolCallId?: string;
  /** What the model last read of each file this session; edits made from a stale read are refused. */
  fileReads?: FileReadStore;
  /** The model's commands run confined by this (core/sandbox); absent for the user's own commands. */
  sandbox?: import("../sandbox/policy.ts").SandboxPolicy;
  /** Secret values omp knows, kept out of commands' environments. */
  secrets?: readonly string[];
  /** Asks to run a command the sandbox refused again outside it; absent: nobody to ask. */
  escalate?: (command: string, refusal: Refusal, explanation: string) => Promise<{ allow: true } | { allow: false; message: string }>;
  /** Starts agents of the calling session's own (the task tool); absent outside an agent session. */
  subagents?: Subagents;
  /**
   * Whose background jobs the call's commands join (core/shell/session-jobs.ts): one key per
   * session, so its jobs end with it; absent: jobs shared by calls without a session.
   */
  jobScope?: object;
  /** An editor's files and terminal (ACP clients that offer them): read, write, edit and bash go through it. */
  editor?: EditorBridge;
  /** The `web` settings, for web_fetch, web_search and URLs in read. */
  web?: WebSettings;
  /**
   * Asks the user about something beyond the call itself (a fetch of a private address), whatever
   * the approval mode, or with `asEffect` only when the mode asks for that effect (read of a URL
   * is a network call); `key` groups answers the user may remember; `url`: the address the summary
   * shows, whose host is then not asked about again. Absent: nobody can be asked.
   */
  approve?: (toolName: string, key: string, summary: string, asEffect?: ToolEffect, url?: string) => Promise<ApprovalOutcome>;
  /** A request to a host the user may not have named (core/permissions/egress.ts): named hosts pass, others ask once or are refused. Absent: refused. */
  egress?: (request: import("../permissions/egress.ts").EgressRequest) => Promise<ApprovalOutcome>;
  /** The session's language servers (diagnostics after writes, the lsp tool); absent in contexts without a session. */
  lsp?: LspSession;
  /** Where the files this call changes keep their prior content, for rewinds; absent: not recorded (no session, or turned off). */
  checkpoints?: import("../session/checkpoints/target.ts").CheckpointTarget;
  /** Asks the user questions (ask, exit_plan_mode) through the session host; absent: nobody can be asked. */
  question?: Questioner;
  /** Whether the calling agent offers a tool by this name now (the bash interceptor points only at tools there are). */
  hasTool?: (name: string) => boolean;
  /** How the model calls tool `name` with `args` now: by name, or through call_tool while it is deferred (core/tools/discovery). Absent: by name. */
  callOf?: (name: string, args: Record<string, unknown>) => string;
  /**
   * The sandbox policy for omp's own file access (core/sandbox/path-policy.ts): reads check it at
   * use, writes go through `authorizeWrite` (file-writes.ts). Absent: no policy (no session).
   */
  paths?: import("../sandbox/path-policy.ts").PathPolicy;
  /** Asks for a write the policy guards, unless the call's approval already granted it; absent: refused. */
  authorizeWrite?: (verdict: Extract<import("../sandbox/path-policy.ts").PathVerdict, { kind: "needs-approval" }>, toolCallId?: string) => Promise<ApprovalOutcome>;
  /** A model that sees images (inspect_image): the session's when it does, else the `vision` then the `smol` role's; undefined: none does. */
  visionModel?: () => Promise<{ model: import("../ai/model.ts").Model; apiKey: string | undefined } | undefined>;
  /** The session's settings, kept current by /settings: read a setting at call time to follow its changes. */
  settings?: Readonly<Settings>;
}

/** One question: single choice (`options`), several (`multiple`), or free text (no options). */
export interface Question {
  question: string;
  /** A short name for the question's tab. */
  header?: string;
  options?: string[];
  /** What each option means, by index ("" for none). */
  descriptions?: string[];
  multiple?: boolean;
}

/** Questions for the user (the ask tool), or a plan for approval (exit_plan_mode). */
export interface QuestionRequest {
  kind: "ask" | "plan";
  questions: Question[];
  plan?: string;
  toolCallId?: string;
}

/** Per question the options chosen or the user's own words; or why there is no answer (dismissed, timed out, nobody left). */
export type QuestionAnswer = { answers: string[][]; plan?: string } | { unanswered: string };

export type Questioner = (request: QuestionRequest) => Promise<QuestionAnswer>;

/**
 * What an editor lends the tools: its open buffers (unsaved changes included) instead of the
 * disk, and a terminal the user watches instead of a hidden process. Each member is present only
 * when the editor offers it.
 */
export interface EditorBridge {
  readTextFile?(path: string): Promise<string>;
  writeTextFile?(path: string, content: string): Promise<void>;
  runCommand?(command: EditorCommand): Promise<EditorCommandResult>;
}

export interface EditorCommand {
  command: string;
  cwd: string;
  env: Record<string, string>;
  timeoutMs: number;
  signal: AbortSignal;
  toolCallId?: string;
  outputByteLimit: number;
}

export interface EditorCommandResult {
  output: string;
  exitCode: number | null;
  signal: string | null;
  truncated: boolean;
  timedOut: boolean;
}

/** `D`: the details the tool declares (its `…Details` type). */
export interface ToolResult<D = unknown> {
  content: (TextContent | ImageContent)[];
  isError?: boolean;
  /** For UIs and sessions, never sent to the model: a diff, an exit code, match counts. */
  details?: D;
  /** A hook's `continue: false`: the run stops once this turn's tools are done, for this reason. Never sent to the model. */
  halt?: string;
  /** The user turned the call down without a word: the reply's later calls are not run and the model waits for the user. */
  userDenied?: true;
}

/** The code of a tool: what validates its input and what runs it. */
export interface ToolImplementation<S extends z.ZodType = z.ZodType, D = unknown> {
  /** The single source of truth for the input; `parameters` is made from it. */
  schema: S;
  /** Throwing is fine: the agent turns the error into an error result for the model. */
  execute(input: z.infer<S>, context: ToolContext): Promise<ToolResult<D>>;
  /**
   * Another shape of the input that models and prompts written for the original omp send (its
   * older parameters), made into the schema's before it is checked; the schema sent stays one.
   */
  acceptInput?(args: unknown): unknown;
  /** What this input does when it differs from the tool's `effect` (a dry run is a read, applying it a write). */
  effectOf?(input: z.infer<S>): ToolEffect;
  /** The files the call would change and how, with nothing written; undefined when it cannot be worked out (the call will fail and say why). */
  preview?(input: z.infer<S>, context: ToolContext): Promise<ChangePreview[] | undefined>;
}

/** A tool as its module writes it; {@link Tool} is what the agent holds. */
export interface ToolDefinition<S extends z.ZodType = z.ZodType, D = unknown> extends ToolImplementation<S, D> {
  name: string;
  /** Shown to the model; says when to use the tool and its limits. */
  description: string;
  effect: ToolEffect;
  /** See {@link Tool.loadMode}. */
  loadMode?: LoadMode;
}

/**
 * `discoverable`: a rarely needed tool, kept out of the first request (request economy) and found
 * by search_tool_bm25, which appends it to the tool list for the rest of the session. The one
 * place a tool is marked deferred: set it on the tool's declaration (`loadMode: "discoverable"`, core/tools/declarations);
 * `tools.discoveryMode` and `tools.essentialOverride` decide whether it is deferred in a session
 * (core/tools/discovery/policy.ts). Unset: the tool is always sent.
 */
export type LoadMode = "essential" | "discoverable";

/**
 * A tool as the agent holds it: everything the model and the approval gate need, without its code.
 * Building zod schemas and evaluating the tools' modules would cost start-up milliseconds before
 * the first request, so the code is loaded on the first call.
 */
export interface Tool {
  name: string;
  description: string;
  effect: ToolEffect;
  /** The input as JSON Schema, as sent to providers. */
  parameters: Record<string, unknown>;
  loadMode?: LoadMode;
  /** The MCP server the tool comes from (MCP tools are discoverable; their deferral follows their own rule). */
  mcpServer?: string;
  /** The implementation; the first call loads it, later calls get the same one. */
  load(): Promise<ToolImplementation>;
}

/**
 * Tools that come and go while the agent runs (MCP servers): the agent offers the model what
 * `tools` returns at each request, updated whenever the source says it changed.
 */
export interface ToolSource {
  /** What to offer now; the same array until something changed. */
  tools(): Tool[];
  /** Resolves once the first request may go out with what is known; never rejects. */
  ready(): Promise<void>;
  subscribe(listener: () => void): () => void;
}
