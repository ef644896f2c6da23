import { addUsage, invalidArgumentsError, stream } from "../ai/index.ts";
import { type AssistantMessage, type ImageContent, type Message, type TextContent, type ToolCall, type ToolResultMessage, type Usage, emptyUsage } from "../ai/messages.ts";
import type { Model, ThinkingLevel } from "../ai/model.ts";
import type { ToolSpec } from "../ai/stream.ts";
import { describeError } from "../errors/omp-error.ts";
import type { NewSessionEntry } from "../session/schema.ts";
import type { SessionWriter } from "../session/writer.ts";
import type { ApprovalGate } from "../tools/approval.ts";
import { runToolCall } from "../tools/run.ts";
import type { Tool, ToolResult } from "../tools/types.ts";
import { isContextOverflow } from "../ai/context-overflow.ts";
import { compactionSummaryMessage } from "../session/compaction-summary.ts";
import { Redactor } from "../session/redact.ts";
import { contextTokens, findCut, summarize } from "./compaction.ts";
import { type AgentEvent, type AgentStopReason, toDelta } from "./events.ts";
import { toolSpec } from "./tool-specs.ts";
import { isThinkingRejection, withoutSignedThinking } from "../ai/preserved-thinking.ts";
import { DROP_THINKING_ENTRY, FACTS_ENTRY, FRAME_ENTRY, type Facts, type RequestFrame, factsNote } from "./request-frame.ts";
import type { AgentExtensions, ExtensionsFactory } from "./agent-extensions.ts";

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
  compaction: { enabled: boolean; reserveTokens: number; keepRecentTokens: number };
  maxRetries: number;
  /** The `bash.timeoutSeconds` setting. */
  bashTimeoutSeconds?: number;
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
  /** Called with a failed reply's error before anything was streamed: another credential to retry with, an error to show instead, or undefined. */
  rotateCredential?: (errorMessage: string) => Promise<{ apiKey: string; model?: Model } | { error: string } | undefined>;
  /** What the user must know about how the session was opened (a fork of a session open elsewhere). */
  warnings?: string[];
  /** Hooks and extensions (see agent-extensions.ts). */
  extensions?: ExtensionsFactory;
  /** 0 for the session's agent, 1 for its subagents, and so on; a subagent's Stop hooks are SubagentStop hooks. */
  depth?: number;
  /** Finds a model by pattern, for subagents whose definition names one. */
  selectModel?: (pattern: string) => Promise<{ model: Model; apiKey: string | undefined }>;
}

/** Stop hooks that block in a row before the run ends anyway: a hook that always blocks must not loop forever. */
const MAX_STOP_BLOCKS = 5;

export type QueueMode = "one-at-a-time" | "all";

/**
 * One conversation with the model: the turn loop (stream a reply, run its tool calls, feed the
 * results back, until the model stops), queues for steering and follow-up messages sent while it
 * works, compaction near the context limit, and persistence of every message to the session.
 * Every mode (print, json, rpc, and the interactive UI) drives this same class.
 */
export class Agent {
  readonly messages: Message[];
  model: Model;
  apiKey: string | undefined;
  thinking: ThinkingLevel;
  tools: Tool[];
  private readonly systemPrompt: Promise<string>;
  /** The system prompt and tools every request of this session sends, fixed by its first request. */
  private frame: { systemPrompt: string; tools: ToolSpec[] } | undefined;
  /** What the model was last told about the date and the repository; undefined until the frame is stored. */
  private toldFacts: Facts | undefined;
  private dropThinkingMarker = false;
  writer: SessionWriter | undefined;
  steeringMode: QueueMode = "one-at-a-time";
  followUpMode: QueueMode = "one-at-a-time";
  autoCompaction: boolean;
  /** Tokens and cost of every request this process made for the session. */
  usage: Usage = emptyUsage();

  private readonly listeners = new Set<(event: AgentEvent) => void>();
  private readonly steering: Message[] = [];
  private readonly followUps: Message[] = [];
  private controller: AbortController | undefined;
  private abortReason: AgentStopReason = "aborted";
  private abortMessage: string | undefined;
  private running: Promise<AgentStopReason> | undefined;
  /** Parallel to `messages`: the session entry each one was stored as, for compaction's firstKeptEntryId. */
  private readonly entryIds: string[];
  private readonly secrets: string[];
  private redactor: Redactor;
  private specs: { tools: Tool[]; specs: ToolSpec[] } | undefined;
  private readonly pendingWrites: { entry: NewSessionEntry; messageIndex?: number }[] = [];
  private writeFailure: unknown;
  private inRun = false;
  readonly extensions: AgentExtensions | undefined;
  private sessionStarted = false;

  constructor(readonly options: AgentOptions) {
    this.messages = [...(options.messages ?? [])];
    this.entryIds = options.messageEntryIds ? [...options.messageEntryIds] : this.messages.map(() => "");
    this.model = options.model;
    this.apiKey = options.apiKey;
    this.thinking = options.thinking;
    this.tools = options.tools;
    this.systemPrompt = Promise.resolve(options.frame?.frame.systemPrompt ?? options.systemPrompt);
    if (options.frame) {
      this.frame = { systemPrompt: options.frame.frame.systemPrompt, tools: options.frame.frame.tools };
      this.toldFacts = options.frame.facts;
    }
    if (options.dropThinking) {
      this.messages.splice(0, this.messages.length, ...withoutSignedThinking(this.messages));
      this.dropThinkingMarker = true;
    }
    // A failure surfaces with the first request; until then it must not count as unhandled.
    this.systemPrompt.catch(() => {});
    this.writer = options.writer;
    this.autoCompaction = options.compaction.enabled;
    this.secrets = [...(options.secrets ?? []), ...(options.apiKey ? [options.apiKey] : [])];
    this.redactor = new Redactor(this.secrets);
    const agent = this;
    this.extensions = options.extensions?.({
      get id() {
        return agent.writer?.header.id ?? "none";
      },
      get transcriptPath() {
        return agent.writer?.path ?? "";
      },
      cwd: options.cwd,
      subagent: (options.depth ?? 0) > 0,
    });
    // A subagent shares its parent's gate: the parent's session is the one that notifies.
    if (this.extensions?.notification && !options.depth) {
      const notify = this.extensions.notification.bind(this.extensions);
      options.gate.onAsk = (request) => void notify(`omp needs your permission to use ${request.toolName}: ${request.summary}`).catch(() => undefined);
    }
  }

  /** Text bound for a file this agent writes (tool logs), with the secrets in use removed. */
  redact(text: string): string {
    return this.redactor.redact(text);
  }

  /** What the user must know about how the session was opened; each mode shows these. */
  get warnings(): readonly string[] {
    return this.options.warnings ?? [];
  }

  /** Where tools save what is too big for the conversation (bash's full output). */
  get artifactsDir(): string {
    return this.options.artifactsDir;
  }

  get isRunning(): boolean {
    return this.running !== undefined;
  }

  get queuedCount(): number {
    return this.steering.length + this.followUps.length;
  }

  subscribe(listener: (event: AgentEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private emit(event: AgentEvent): void {
    for (const listener of this.listeners) listener(event);
  }

  /**
   * A tool source changed what it offers (an MCP server connected or sent list_changed). Once the
   * session's frame is stored the new list replaces its tools, and signed thinking made behind the
   * old list is dropped: the provider refuses it once the tools before it changed.
   */
  setTools(tools: Tool[]): void {
    this.tools = tools;
    if (!this.frame) return;
    const specs = tools.map(toolSpec);
    if (JSON.stringify(specs) === JSON.stringify(this.frame.tools)) return;
    this.frame = { ...this.frame, tools: specs };
    const facts = this.toldFacts ?? { date: new Date().toISOString().slice(0, 10), git: "" };
    this.persist({ type: "custom", customType: FRAME_ENTRY, data: { systemPrompt: this.frame.systemPrompt, tools: specs, facts } satisfies RequestFrame });
    this.messages.splice(0, this.messages.length, ...withoutSignedThinking(this.messages));
    this.persist({ type: "custom", customType: DROP_THINKING_ENTRY, data: { reason: "the tool list changed" } });
  }

  toolSpecs(): ToolSpec[] {
    if (this.frame) return this.frame.tools;
    if (this.specs?.tools !== this.tools) this.specs = { tools: this.tools, specs: this.tools.map(toolSpec) };
    return this.specs.specs;
  }

  contextTokens(): number {
    return contextTokens(this.messages);
  }

  /** Runs the agent on a new user message until the model stops; resolves with why it stopped. */
  prompt(content: string | (TextContent | ImageContent)[]): Promise<AgentStopReason> {
    if (this.running) throw new Error("the agent is already working; steer or queue a follow-up instead");
    const run = this.run(userMessage(content)).finally(() => {
      this.running = undefined;
    });
    this.running = run;
    return run;
  }

  /** Delivered after the current tool calls, before the model's next step. */
  steer(content: string | (TextContent | ImageContent)[]): void {
    this.steering.push(userMessage(content));
  }

  /** Delivered once the model has finished its current work. */
  followUp(content: string | (TextContent | ImageContent)[]): void {
    this.followUps.push(userMessage(content));
  }

  /** Stops the running prompt; `message` becomes agent_end's error (e.g. which limit was hit). */
  abort(reason: AgentStopReason = "aborted", message?: string): void {
    if (!this.controller || this.controller.signal.aborted) return;
    this.abortReason = reason;
    this.abortMessage = message;
    this.controller.abort();
  }

  /** Waits for the running prompt, if any. */
  async idle(): Promise<void> {
    await this.running?.catch(() => undefined);
  }

  setModel(model: Model, apiKey: string | undefined): void {
    this.model = model;
    this.apiKey = apiKey;
    if (apiKey && !this.secrets.includes(apiKey)) {
      this.secrets.push(apiKey);
      this.redactor = new Redactor(this.secrets);
      this.flushSession();
      this.writer?.addSecret(apiKey);
    }
    this.persist({ type: "model_change", model: `${model.provider}/${model.id}` });
    this.options.announceModel = false;
  }

  setThinking(level: ThinkingLevel): void {
    this.thinking = level;
    this.persist({ type: "thinking_level_change", thinkingLevel: level });
    this.options.announceThinking = false;
  }

  /**
   * Adds a message to the conversation and the session. `beforeRequest` marks messages recorded
   * right before a model request (the prompt, steering, tool results): during a run their session
   * write waits until that request is on its way (StreamOptions.onRequest), so validation,
   * redaction and, for a new session, creating the file overlap the provider's answer instead of
   * delaying the request. Everything else is written at once, and so is anything still queued.
   */
  private record(message: Message, beforeRequest = false): void {
    if (this.options.announceModel) {
      this.persist({ type: "model_change", model: `${this.model.provider}/${this.model.id}` }, undefined, beforeRequest);
      this.options.announceModel = false;
    }
    if (this.options.announceThinking) {
      this.persist({ type: "thinking_level_change", thinkingLevel: this.thinking }, undefined, beforeRequest);
      this.options.announceThinking = false;
    }
    if (this.dropThinkingMarker) {
      this.persist({ type: "custom", customType: DROP_THINKING_ENTRY, data: { reason: "resumed without a stored request frame" } }, undefined, beforeRequest);
      this.dropThinkingMarker = false;
    }
    this.messages.push(message);
    this.entryIds.push("");
    this.persist({ type: "message", message }, this.entryIds.length - 1, beforeRequest);
  }

  private persist(entry: NewSessionEntry, messageIndex?: number, defer = false): void {
    if (!this.writer) return;
    this.pendingWrites.push({ entry, messageIndex });
    if (!defer || !this.inRun) this.flushSession();
  }

  /** The request is on its way: write what waited for it. A failure ends the run at its next step. */
  private readonly onRequest = (): void => {
    try {
      this.flushSession();
    } catch (error) {
      this.writeFailure ??= error;
    }
  };

  /** A deferred session write that failed ends the run at its next step rather than going unnoticed. */
  private throwWriteFailure(): void {
    if (this.writeFailure === undefined) return;
    const failure = this.writeFailure;
    this.writeFailure = undefined;
    this.pendingWrites.length = 0;
    throw failure;
  }

  /** Writes what {@link persist} queued. */
  private flushSession(): void {
    this.throwWriteFailure();
    while (this.pendingWrites.length > 0) {
      const { entry, messageIndex } = this.pendingWrites.shift()!;
      const written = this.writer!.append(entry);
      if (messageIndex !== undefined) this.entryIds[messageIndex] = written.id;
    }
  }

  private async run(first: Message): Promise<AgentStopReason> {
    this.inRun = true;
    this.controller = new AbortController();
    this.abortReason = "aborted";
    this.abortMessage = undefined;
    const signal = this.controller.signal;
    this.emit({ type: "agent_start" });
    let stopReason: AgentStopReason = "stop";
    let error: string | undefined;
    const runUsage: Usage[] = [];
    // Messages that open the next turn: the prompt, then steering or follow-ups.
    let pending: Message[] = [first];
    let overflowCompacted = false;
    let thinkingDropped = false;
    let stopBlocks = 0;
    let opening = first;
    try {
      // A subagent's prompt comes from its parent, not the user: no session or prompt hooks (as in Claude Code).
      if (this.extensions && !this.options.depth) {
        const blocked = await this.promptHooks(first);
        if (blocked !== undefined) {
          pending = [];
          throw new Error(blocked);
        }
      }
      opening = await this.withFactsUpdate(first);
      pending = [opening];
      let turn = 0;
      for (;;) {
        if (this.options.maxTurns !== undefined && turn >= this.options.maxTurns) {
          stopReason = "max_turns";
          error = `stopped after ${turn} model requests (--max-turns)`;
          break;
        }
        turn++;
        this.emit({ type: "turn_start", turn });
        this.throwWriteFailure();
        this.deliver(pending);
        pending = [];
        if (this.autoCompaction && this.nearContextLimit()) await this.compact("threshold");
        let reply = await this.streamReply(signal);
        // A usage limit before anything was streamed: another stored account takes the request.
        for (let rotation = await this.rotate(reply); rotation && "apiKey" in rotation; rotation = await this.rotate(reply)) {
          this.setModel(rotation.model ?? this.model, rotation.apiKey);
          reply = await this.streamReply(signal);
        }
        runUsage.push(reply.usage);
        if (this.thinkingRejected(reply) && !thinkingDropped && !signal.aborted) {
          // Signed thinking failed the provider's prefix check (something before it changed in a
          // way omp did not foresee): ask once more without it rather than end the session on a 400.
          thinkingDropped = true;
          this.emit({ type: "message_end", message: reply });
          this.emit({ type: "turn_end", turn, message: reply, toolResults: [] });
          this.emit({ type: "auto_retry_start", attempt: 1, delayMs: 0, reason: "the provider refused the earlier thinking blocks; sending the conversation again without them" });
          this.messages.splice(0, this.messages.length, ...withoutSignedThinking(this.messages));
          this.persist({ type: "custom", customType: DROP_THINKING_ENTRY, data: { reason: reply.errorMessage ?? "" } });
          continue;
        }
        if (this.overflowed(reply) && !overflowCompacted && !signal.aborted) {
          // The estimate missed (tokenisers differ, images): the provider refused the request as
          // too long. Compact once and ask again rather than end the run on a 400. The refusal
          // is shown but kept out of the context and the session.
          overflowCompacted = true;
          this.emit({ type: "message_end", message: reply });
          this.emit({ type: "turn_end", turn, message: reply, toolResults: [] });
          if (await this.compact("overflow")) continue;
          stopReason = "error";
          error = `${reply.errorMessage} (compacting the conversation did not make it fit: start a new session or use a model with a larger context window)`;
          break;
        }
        this.record(reply);
        this.emit({ type: "message_end", message: reply });
        if (reply.stopReason === "aborted" || signal.aborted) {
          this.emit({ type: "turn_end", turn, message: reply, toolResults: [] });
          stopReason = this.abortReason;
          error = this.abortMessage;
          break;
        }
        if (reply.stopReason === "error") {
          this.emit({ type: "turn_end", turn, message: reply, toolResults: [] });
          stopReason = "error";
          error = reply.errorMessage;
          break;
        }
        const calls = reply.content.filter((part): part is ToolCall => part.type === "toolCall");
        const halts: string[] = [];
        const results = calls.length > 0 ? await this.runTools(calls, signal, halts) : [];
        this.emit({ type: "turn_end", turn, message: reply, toolResults: results });
        if (halts.length > 0) {
          stopReason = "hook";
          error = `a hook stopped the run: ${[...new Set(halts)].join("; ")}`;
          break;
        }
        if (signal.aborted) {
          stopReason = this.abortReason;
          error = this.abortMessage;
          break;
        }
        const steering = take(this.steering, this.steeringMode);
        if (calls.length > 0 || steering.length > 0) {
          pending = steering;
          continue;
        }
        const followUps = take(this.followUps, this.followUpMode);
        if (followUps.length > 0) {
          pending = followUps;
          continue;
        }
        if (reply.stopReason === "length") stopReason = "length";
        const goOn = stopBlocks < MAX_STOP_BLOCKS ? await this.extensions?.stop?.(stopBlocks > 0) : undefined;
        if (goOn !== undefined && !signal.aborted) {
          stopBlocks++;
          pending = [userMessage(`A stop hook asked you to continue:\n${goOn}`)];
          continue;
        }
        break;
      }
    } catch (thrown) {
      stopReason = "error";
      error = describeError(thrown);
    } finally {
      // Taken from a queue but never sent (a limit stopped the run): keep them for the next run.
      if (pending.length > 0 && pending[0] !== opening) this.steering.unshift(...pending);
      this.controller = undefined;
      this.inRun = false;
    }
    try {
      this.flushSession();
      this.writer?.sync();
    } catch (thrown) {
      stopReason = "error";
      error ??= describeError(thrown);
    }
    this.emit({ type: "agent_end", stopReason, ...(error === undefined ? {} : { error }), usage: addUsage(emptyUsage(), ...runUsage) });
    return stopReason;
  }

  private deliver(messages: Message[]): void {
    for (const message of messages) {
      this.emit({ type: "message_start", message });
      this.record(message, true);
      this.emit({ type: "message_end", message });
    }
  }

  /** Asks the runtime for another credential after a usage-limit reply; an error replaces the reply's when none is left. */
  private async rotate(reply: AssistantMessage): Promise<{ apiKey: string; model?: Model } | undefined> {
    if (!this.options.rotateCredential || reply.stopReason !== "error" || reply.content.length > 0 || reply.errorMessage === undefined) return undefined;
    const next = await this.options.rotateCredential(reply.errorMessage);
    if (next && "error" in next) reply.errorMessage = this.redact(next.error);
    return next && "apiKey" in next ? next : undefined;
  }

  private async streamReply(signal: AbortSignal): Promise<AssistantMessage> {
    let final: AssistantMessage | undefined;
    let started = false;
    const systemPrompt = await this.systemPrompt;
    if (!this.frame) await this.storeFrame(systemPrompt);
    const events = stream(
      this.model,
      { systemPrompt, messages: this.messages, tools: this.toolSpecs() },
      {
        apiKey: this.apiKey,
        signal,
        thinking: this.thinking,
        maxRetries: this.options.maxRetries,
        retryBaseDelayMs: this.options.retry?.baseDelayMs,
        idleTimeoutMs: this.options.retry?.idleTimeoutMs,
        sessionId: this.writer?.header.id,
        onRequest: this.onRequest,
      },
    );
    for await (const event of events) {
      if (event.type === "start") {
        started = true;
        this.emit({ type: "message_start", message: event.partial });
      } else if (event.type === "retry") {
        this.emit({ type: "auto_retry_start", attempt: event.attempt, delayMs: event.delayMs, reason: this.redact(event.reason), ...(event.discarded ? { discarded: true } : {}) });
        // The next attempt's reply is a new message for the UIs; the discarded one stays as it was shown.
        if (event.discarded) started = false;
      } else if (!started && event.type !== "done" && event.type !== "error" && "partial" in event) {
        started = true;
        this.emit({ type: "message_start", message: event.partial });
        const delta = toDelta(event);
        if (delta) this.emit({ type: "message_update", assistantMessageEvent: delta });
      } else if (event.type === "done" || event.type === "error") {
        // A provider's error body can echo what it was sent (a key in a bad header, a config value).
        final = event.message.errorMessage === undefined ? event.message : { ...event.message, errorMessage: this.redact(event.message.errorMessage) };
      } else {
        const delta = toDelta(event);
        if (delta) this.emit({ type: "message_update", assistantMessageEvent: delta });
      }
    }
    if (!final) throw new Error(`the ${this.model.api} stream ended without a final message`);
    if (!started) this.emit({ type: "message_start", message: final });
    this.usage = addUsage(this.usage, final.usage);
    return final;
  }

  /**
   * Runs a reply's tool calls. Calls that only read run together; a call that writes or executes
   * waits for the ones before it and holds back the ones after, so effects happen in the order
   * the model asked for them. Results are recorded in call order.
   */
  /** `halts`: filled with the reasons of hooks that said `continue: false`. */
  private async runTools(calls: ToolCall[], signal: AbortSignal, halts: string[]): Promise<ToolResultMessage[]> {
    const results: ToolResultMessage[] = new Array(calls.length);
    let batch: Promise<void>[] = [];
    for (const [index, call] of calls.entries()) {
      const tool = this.tools.find((t) => t.name === call.name);
      const job = () => this.runTool(call, tool, signal, halts).then((message) => void (results[index] = message));
      if (tool?.effect === "read") batch.push(job());
      else {
        await Promise.all(batch);
        batch = [];
        await job();
      }
    }
    await Promise.all(batch);
    for (const message of results) this.record(message, true);
    return results;
  }

  private async runTool(call: ToolCall, tool: Tool | undefined, signal: AbortSignal, halts: string[]): Promise<ToolResultMessage> {
    this.emit({ type: "tool_execution_start", toolCallId: call.id, toolName: call.name, args: call.arguments });
    let result: ToolResult;
    const badArguments = invalidArgumentsError(call.arguments);
    if (badArguments) {
      result = { content: [{ type: "text", text: badArguments }], isError: true };
    } else if (!tool) {
      const names = this.tools.map((t) => t.name).join(", ") || "none";
      result = { content: [{ type: "text", text: `There is no tool named ${call.name}. Available tools: ${names}.` }], isError: true };
    } else {
      result = await runToolCall(
        tool,
        call.arguments,
        {
          cwd: this.options.cwd,
          signal,
          artifactsDir: this.options.artifactsDir,
          redact: (text) => this.redact(text),
          ...(this.options.bashTimeoutSeconds === undefined ? {} : { bashTimeoutSeconds: this.options.bashTimeoutSeconds }),
          onUpdate: (output) => this.emit({ type: "tool_execution_update", toolCallId: call.id, toolName: call.name, output }),
          agent: this,
          toolCallId: call.id,
        },
        this.options.gate,
        this.extensions?.toolHooks,
        call.id,
      );
    }
    if (result.halt !== undefined) halts.push(result.halt);
    const message: ToolResultMessage = {
      role: "toolResult",
      toolCallId: call.id,
      toolName: call.name,
      content: result.content,
      isError: result.isError ?? false,
      ...(result.details === undefined ? {} : { details: result.details }),
      timestamp: Date.now(),
    };
    this.emit({ type: "tool_execution_end", toolCallId: call.id, toolName: call.name, isError: message.isError, details: result.details });
    this.emit({ type: "message_start", message });
    this.emit({ type: "message_end", message });
    return message;
  }

  /**
   * The first request of a session fixes its system prompt and tools and stores them with the
   * facts they state, so that every later request, and a resume, sends the same prefix.
   */
  private async storeFrame(systemPrompt: string): Promise<void> {
    const tools = this.toolSpecs();
    const facts = (await this.options.facts) ?? { date: new Date().toISOString().slice(0, 10), git: "" };
    this.frame = { systemPrompt, tools };
    this.toldFacts = facts;
    this.persist({ type: "custom", customType: FRAME_ENTRY, data: { systemPrompt, tools, facts } satisfies RequestFrame }, undefined, true);
  }

  /**
   * A resumed session's first prompt, with a note of what changed since the model was last told
   * (a new day, commits, edited files): the stored system prompt still states the old facts.
   */
  private async withFactsUpdate(message: Message): Promise<Message> {
    if (!this.toldFacts || !this.options.facts || message.role !== "user") return message;
    const now = await this.options.facts;
    const note = factsNote(this.toldFacts, now);
    this.toldFacts = now;
    if (!note) return message;
    this.persist({ type: "custom", customType: FACTS_ENTRY, data: now });
    const content = typeof message.content === "string" ? [{ type: "text" as const, text: message.content }] : message.content;
    return { ...message, content: [{ type: "text", text: note }, ...content] };
  }

  /** A 400 before any output because signed thinking failed the provider's checks, while some was sent. */
  private thinkingRejected(reply: AssistantMessage): boolean {
    return reply.stopReason === "error" && reply.content.length === 0 && isThinkingRejection(reply.errorMessage) && this.messages.some((m) => m.role === "assistant" && m.content.some((c) => c.type === "thinking" && c.signature));
  }

  /**
   * SessionStart (once per agent) and UserPromptSubmit hooks for a prompt: their context goes in
   * front of the prompt's text, so the model reads it with the prompt and the session keeps it.
   * Returns why the prompt was blocked, if it was.
   */
  private async promptHooks(prompt: Message): Promise<string | undefined> {
    const context: string[] = [];
    if (!this.sessionStarted) {
      this.sessionStarted = true;
      context.push(...((await this.extensions!.sessionStart?.(this.options.messages?.length ? "resume" : "startup")) ?? []));
    }
    const text = typeof prompt.content === "string" ? prompt.content : prompt.content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("\n");
    const submitted = await this.extensions!.userPrompt?.(text);
    if (submitted?.block !== undefined) return `the prompt was blocked by a UserPromptSubmit hook: ${submitted.block}`;
    context.push(...(submitted?.context ?? []));
    if (context.length > 0 && prompt.role === "user") {
      const parts = typeof prompt.content === "string" ? [{ type: "text" as const, text: prompt.content }] : prompt.content;
      prompt.content = [...context.map((text) => ({ type: "text" as const, text: `<system-reminder>\n${text}\n</system-reminder>` })), ...parts];
    }
    return undefined;
  }

  /** The session is over (the process is ending, or another session replaces it): SessionEnd hooks. */
  async end(reason: "prompt_input_exit" | "clear" | "logout" | "other"): Promise<void> {
    await this.extensions?.sessionEnd?.(reason);
  }

  /** A reply that failed because the request no longer fits the context window, before any output. */
  private overflowed(reply: AssistantMessage): boolean {
    return this.autoCompaction && reply.stopReason === "error" && reply.content.length === 0 && isContextOverflow(reply.errorMessage);
  }

  private nearContextLimit(): boolean {
    const { reserveTokens } = this.options.compaction;
    return this.contextTokens() > Math.max(this.model.contextWindow - reserveTokens, this.model.contextWindow / 2);
  }

  /**
   * Replaces older messages with a model-written summary, keeping the recent tail verbatim; the
   * session records a compaction entry, so a resume sees the same context. Returns false when
   * there was nothing old enough to summarise.
   */
  async compact(reason: "threshold" | "manual" | "overflow", instructions?: string): Promise<boolean> {
    this.flushSession();
    const cut = findCut(this.messages, this.options.compaction.keepRecentTokens);
    if (cut <= 0) return false;
    await this.extensions?.preCompact?.(reason === "manual" ? "manual" : "auto");
    this.emit({ type: "auto_compaction_start", reason });
    const tokensBefore = this.contextTokens();
    // Between runs there is no run to abort: a compaction of its own, so abort() stops it too.
    const own = this.controller === undefined ? (this.controller = new AbortController()) : undefined;
    try {
      const { summary, usage } = await summarize(this.model, this.messages.slice(0, cut), {
        apiKey: this.apiKey,
        signal: this.controller?.signal,
        instructions,
      });
      this.usage = addUsage(this.usage, usage);
      // The kept turns now follow a summary instead of what they were produced after: their
      // signed thinking would fail the prefix check.
      const kept = withoutSignedThinking(this.messages.slice(cut));
      const keptIds = this.entryIds.slice(cut);
      const firstKeptEntryId = keptIds.find((id) => id !== "");
      this.messages.length = 0;
      this.messages.push(compactionSummaryMessage(summary, Date.now()), ...kept);
      this.entryIds.length = 0;
      this.entryIds.push("", ...keptIds);
      if (firstKeptEntryId) this.persist({ type: "compaction", summary, firstKeptEntryId, tokensBefore });
      this.emit({ type: "auto_compaction_end", tokensBefore, summary });
      return true;
    } catch (error) {
      this.emit({ type: "auto_compaction_end", error: describeError(error) });
      return false;
    } finally {
      if (own && this.controller === own) this.controller = undefined;
    }
  }
}

function userMessage(content: string | (TextContent | ImageContent)[]): Message {
  return { role: "user", content, timestamp: Date.now() };
}

function take<T>(queue: T[], mode: QueueMode): T[] {
  return mode === "all" ? queue.splice(0) : queue.splice(0, 1);
}
