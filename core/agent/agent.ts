import { addUsage } from "../ai/index.ts";
import { type AssistantMessage, type ImageContent, type Message, type TextContent, type ToolCall, type ToolResultMessage, type Usage, emptyUsage } from "../ai/messages.ts";
import type { Model, ThinkingLevel } from "../ai/model.ts";
import type { ToolSpec } from "../ai/stream.ts";
import { describeError } from "../errors/omp-error.ts";
import type { SessionWriter } from "../session/writer.ts";
import { FileReadStore } from "../tools/edit/read-store.ts";
import type { Tool } from "../tools/types.ts";
import { compactionSummaryMessage } from "../session/compaction-summary.ts";
import { Redactor } from "../session/redact.ts";
import { contextTokens, findCut, summarize } from "./compaction.ts";
import type { AgentEvent, AgentStopReason } from "./events.ts";
import { withoutSignedThinking } from "../ai/preserved-thinking.ts";
import { DROP_THINKING_ENTRY } from "./request-frame.ts";
import { SessionFrame } from "./session-frame.ts";
import type { AgentExtensions } from "./agent-extensions.ts";
import type { AgentOptions, QueueMode } from "./agent-options.ts";
import { SessionRecorder } from "./session-recorder.ts";
import { streamReply } from "./reply-stream.ts";
import { runToolCalls } from "./tool-calls.ts";
import { applyPromptHooks } from "./prompt-hooks.ts";
import { endSessionJobs } from "../shell/session-jobs.ts";

/** Stop hooks that block in a row before the run ends anyway: a hook that always blocks must not loop forever. */
const MAX_STOP_BLOCKS = 5;

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
  private readonly frame: SessionFrame;
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
  private readonly secrets: string[];
  private redactor: Redactor;
  private readonly session: SessionRecorder;
  readonly extensions: AgentExtensions | undefined;
  private sessionStarted = false;

  constructor(readonly options: AgentOptions) {
    this.messages = [...(options.messages ?? [])];
    this.session = new SessionRecorder(() => this.writer, options.messageEntryIds ? [...options.messageEntryIds] : this.messages.map(() => ""));
    this.frame = new SessionFrame(this.session, options.facts, options.frame);
    this.model = options.model;
    this.apiKey = options.apiKey;
    this.thinking = options.thinking;
    this.tools = options.tools;
    this.systemPrompt = Promise.resolve(options.frame?.frame.systemPrompt ?? options.systemPrompt);
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
    if (this.extensions?.permissionRequest && !options.depth) {
      const decide = this.extensions.permissionRequest.bind(this.extensions);
      options.gate.beforeAsk = (request) => decide(request.toolName, (request.input ?? {}) as Record<string, unknown>).catch(() => undefined);
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
    if (!this.frame.replaceTools(tools)) return;
    this.messages.splice(0, this.messages.length, ...withoutSignedThinking(this.messages));
    this.session.persist({ type: "custom", customType: DROP_THINKING_ENTRY, data: { reason: "the tool list changed" } });
  }

  /** What the model last read of each file (see tools/edit/read-store.ts). */
  readonly fileReads = new FileReadStore();

  toolSpecs(): ToolSpec[] {
    return this.frame.toolSpecs(this.tools);
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
      this.session.flush();
      this.writer?.addSecret(apiKey);
    }
    this.session.persist({ type: "model_change", model: `${model.provider}/${model.id}` });
    this.options.announceModel = false;
  }

  setThinking(level: ThinkingLevel): void {
    this.thinking = level;
    this.session.persist({ type: "thinking_level_change", thinkingLevel: level });
    this.options.announceThinking = false;
  }

  /**
   * Adds a message to the conversation and the session. `beforeRequest` marks messages recorded
   * right before a model request (the prompt, steering, tool results): during a run their session
   * write waits until that request is on its way (see session-recorder.ts).
   */
  private record(message: Message, beforeRequest = false): void {
    if (this.options.announceModel) {
      this.session.persist({ type: "model_change", model: `${this.model.provider}/${this.model.id}` }, undefined, beforeRequest);
      this.options.announceModel = false;
    }
    if (this.options.announceThinking) {
      this.session.persist({ type: "thinking_level_change", thinkingLevel: this.thinking }, undefined, beforeRequest);
      this.options.announceThinking = false;
    }
    if (this.dropThinkingMarker) {
      this.session.persist({ type: "custom", customType: DROP_THINKING_ENTRY, data: { reason: "resumed without a stored request frame" } }, undefined, beforeRequest);
      this.dropThinkingMarker = false;
    }
    this.messages.push(message);
    this.session.entryIds.push("");
    this.session.persist({ type: "message", message }, this.session.entryIds.length - 1, beforeRequest);
  }

  private async run(first: Message): Promise<AgentStopReason> {
    this.session.inRun = true;
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
      opening = await this.frame.withFactsUpdate(first);
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
        this.session.throwWriteFailure();
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
          this.session.persist({ type: "custom", customType: DROP_THINKING_ENTRY, data: { reason: reply.errorMessage ?? "" } });
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
          await this.extensions?.stopFailure?.(reply.errorMessage ?? "the provider failed", reply.failure?.kind).catch(() => undefined);
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
      this.session.inRun = false;
    }
    try {
      this.session.flush();
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
    if (!this.options.rotateCredential || reply.stopReason !== "error" || reply.content.length > 0 || reply.failure === undefined) return undefined;
    const next = await this.options.rotateCredential(reply.failure);
    if (next && "error" in next) reply.errorMessage = this.redact(next.error);
    return next && "apiKey" in next ? next : undefined;
  }

  private async streamReply(signal: AbortSignal): Promise<AssistantMessage> {
    const systemPrompt = await this.systemPrompt;
    if (!this.frame.stored) await this.frame.store(systemPrompt, this.toolSpecs());
    const final = await streamReply(
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
        onRequest: this.session.onRequest,
        // The model's own search stands in only where omp's web_search (a configured provider) is absent.
        ...(this.options.web?.nativeSearch && !this.tools.some((tool) => tool.name === "web_search") ? { nativeWebSearch: true } : {}),
      },
      (event) => this.emit(event),
      (text) => this.redact(text),
      this.options.stream,
    );
    this.usage = addUsage(this.usage, final.usage);
    return final;
  }

  /** Runs a reply's tool calls (see tool-calls.ts) and records their results in call order. `halts`: see ToolCallRun. */
  private async runTools(calls: ToolCall[], signal: AbortSignal, halts: string[]): Promise<ToolResultMessage[]> {
    const results = await runToolCalls(calls, {
      tools: () => this.tools,
      context: {
        cwd: this.options.cwd,
        signal,
        artifactsDir: this.options.artifactsDir,
        redact: (text) => this.redact(text),
        ...(this.options.bashTimeoutSeconds === undefined ? {} : { bashTimeoutSeconds: this.options.bashTimeoutSeconds }),
        fileReads: this.fileReads,
        ...(this.options.shell ? { shell: this.options.shell } : {}),
        ...(this.options.sandbox ? { sandbox: this.options.sandbox } : {}),
        secrets: this.secrets,
        escalate: (command, why) => this.options.gate.escalate(command, why),
        subagents: { depth: this.options.depth ?? 0, run: (request) => import("./subagent.ts").then((module) => module.runSubagent(this, request)) },
        jobScope: this,
        ...(this.options.editor ? { editor: this.options.editor } : {}),
        ...(this.options.web ? { web: this.options.web } : {}),
        approve: (toolName, key, summary, asEffect) => this.options.gate.ask(toolName, asEffect ?? "network", key, summary, asEffect !== undefined),
        ...(this.options.lsp ? { lsp: this.options.lsp } : {}),
      },
      gate: this.options.gate,
      hooks: this.extensions?.toolHooks,
      emit: (event) => this.emit(event),
      halts,
    });
    for (const message of results) this.record(message, true);
    return results;
  }

  /** A 400 before any output because signed thinking failed the provider's checks, while some was sent. */
  private thinkingRejected(reply: AssistantMessage): boolean {
    return reply.stopReason === "error" && reply.content.length === 0 && reply.failure?.kind === "thinking-signature" && this.messages.some((m) => m.role === "assistant" && m.content.some((c) => c.type === "thinking" && c.signature));
  }

  /** SessionStart (once per agent) and UserPromptSubmit hooks for a prompt; see prompt-hooks.ts. */
  private promptHooks(prompt: Message): Promise<string | undefined> {
    const sessionStart = this.sessionStarted ? undefined : this.options.messages?.length ? "resume" : "startup";
    this.sessionStarted = true;
    return applyPromptHooks(this.extensions!, prompt, sessionStart);
  }

  /** The session is over (the process is ending, or another session replaces it): SessionEnd hooks. */
  async end(reason: "prompt_input_exit" | "clear" | "logout" | "other"): Promise<void> {
    await this.extensions?.sessionEnd?.(reason);
    // Background commands end with their session.
    await endSessionJobs(this);
    if (!this.options.depth) await this.options.lsp?.stop();
  }

  /** A reply that failed because the request no longer fits the context window, before any output. */
  private overflowed(reply: AssistantMessage): boolean {
    return this.autoCompaction && reply.stopReason === "error" && reply.content.length === 0 && reply.failure?.kind === "context-overflow";
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
    this.session.flush();
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
      const keptIds = this.session.entryIds.slice(cut);
      const firstKeptEntryId = keptIds.find((id) => id !== "");
      this.messages.length = 0;
      this.messages.push(compactionSummaryMessage(summary, Date.now()), ...kept);
      this.session.entryIds.length = 0;
      this.session.entryIds.push("", ...keptIds);
      if (firstKeptEntryId) this.session.persist({ type: "compaction", summary, firstKeptEntryId, tokensBefore });
      this.emit({ type: "auto_compaction_end", tokensBefore, summary });
      await this.extensions?.postCompact?.(reason === "manual" ? "manual" : "auto", summary).catch(() => undefined);
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
