import { addUsage } from "../ai/index.ts";
import { type AssistantMessage, type ImageContent, type Message, type TextContent, type ToolCall, type ToolResultMessage, type Usage, emptyUsage } from "../ai/messages.ts";
import type { Model, ThinkingLevel } from "../ai/model.ts";
import type { AssistantEvent, ToolSpec } from "../ai/stream.ts";
import { errorInfo } from "../errors/error-kind.ts";
import type { SessionWriter } from "../session/writer.ts";
import { FileReadStore } from "../tools/edit/read-store.ts";
import type { Tool, ToolContext } from "../tools/types.ts";
import { compactionSummaryMessage } from "../session/compaction-summary.ts";
import { Redactor } from "../session/redact.ts";
import { contextTokens, findCut, summarize } from "./compaction.ts";
import { withoutRepeat } from "./repeated-results.ts";
import { collectBetweenTurns } from "./gc-pacer.ts";
import type { AgentEvent, AgentStopReason } from "./events.ts";
import { withoutSignedThinking } from "../ai/preserved-thinking.ts";
import { DROP_THINKING_ENTRY } from "./request-frame.ts";
import { SessionFrame } from "./session-frame.ts";
import type { AgentExtensions } from "../extensions/agent-extensions.ts";
import type { AgentOptions, QueueMode } from "./agent-options.ts";
import type { SessionMode } from "../session/modes.ts";
import { SessionRecorder } from "./session-recorder.ts";
import { sessionTitle } from "./session-title.ts";
import { SESSION_NAME_ENTRY } from "../session/name-entry.ts";
import { streamReply } from "./reply-stream.ts";
import { type ToolCallRun, runToolCalls } from "./tool-calls.ts";
import { toolContext } from "./tool-context.ts";
import { applyPromptHooks } from "./prompt-hooks.ts";
import { ModelCheckpoint, rewindConversation } from "./model-checkpoint.ts";
import { endSessionJobs } from "../shell/session-jobs.ts";
import { endSessionKernels } from "../eval/session-kernels.ts";
import type { RunState, RunStop } from "./run-state.ts";
import { CALL_TOOL_NAME, ToolDiscovery } from "../tools/discovery/tool-discovery.ts";
import { discoveryPolicy } from "../tools/discovery/policy.ts";
import { StreamRules, type WatchedRequest } from "./stream-rules.ts";
import { StreamRuleTurns } from "./stream-rule-turns.ts";
import { firstPromptRecall } from "./memory-recall.ts";
import { startExtensions } from "./agent-extensions-start.ts";
import { recoverRefusal } from "./refusals.ts";

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
  /** Every tool the agent can run, deferred ones included; {@link offeredTools} is what the model is sent. */
  tools: Tool[];
  /** Which tools are kept out of the requests until search_tool_bm25 finds them (core/tools/discovery). */
  private readonly discovery: ToolDiscovery;
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
  /** The user named the session (/name, rpc set_session_name): a title the smol model writes must not replace it. */
  userNamed = false;
  /** Put before each prompt of the user while set (plan mode's reminder of what it allows). */
  promptNote: string | undefined;

  private readonly listeners = new Set<(event: AgentEvent) => void>();
  private readonly steering: Message[] = [];
  private readonly followUps: Message[] = [];
  private controller: AbortController | undefined;
  /** Names the prompt's run in progress, for the checkpoints (a command's snapshot serves the next one of the same run). */
  private runId = "";
  private abortReason: AgentStopReason = "aborted";
  private abortMessage: string | undefined;
  private running: Promise<AgentStopReason> | undefined;
  private readonly secrets: string[];
  private redactor: Redactor;
  private readonly session: SessionRecorder;
  readonly extensions: AgentExtensions | undefined;
  private sessionStarted = false;
  private readonly recallMemories: (first: Message) => Promise<void>;
  private readonly streamRules: StreamRuleTurns | undefined;
  private readonly modelCheckpoint = new ModelCheckpoint();

  constructor(readonly options: AgentOptions) {
    this.messages = [...(options.messages ?? [])];
    this.session = new SessionRecorder(() => this.writer, options.messageEntryIds ? [...options.messageEntryIds] : this.messages.map(() => ""));
    this.frame = new SessionFrame(this.session, options.facts, options.frame);
    this.model = options.model;
    this.apiKey = options.apiKey;
    this.thinking = options.thinking;
    this.tools = options.tools;
    this.discovery = new ToolDiscovery(discoveryPolicy(options.settings), options.frame?.frame.tools.map((tool) => tool.name) ?? [], () => this.refreshFrame());
    this.systemPrompt = Promise.resolve(options.frame?.frame.systemPrompt ?? options.systemPrompt);
    if (options.dropThinking) {
      this.messages.splice(0, this.messages.length, ...withoutSignedThinking(this.messages));
      this.dropThinkingMarker = true;
    }
    // A failure surfaces with the first request; until then it must not count as unhandled.
    this.systemPrompt.catch(() => {});
    this.writer = options.writer;
    this.recallMemories = firstPromptRecall(options);
    this.streamRules = options.streamRules?.hasRules() ? new StreamRuleTurns(new StreamRules(options.streamRules), { emit: (event) => this.emit(event), record: (message) => this.record(message), persist: (entry) => this.session.persist(entry) }) : undefined;
    this.autoCompaction = options.compaction.enabled;
    this.secrets = [...(options.secrets ?? []), ...(options.apiKey ? [options.apiKey] : [])];
    this.redactor = new Redactor(this.secrets);
    this.extensions = startExtensions(options, () => this.writer);
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
    this.refreshFrame();
  }

  /** The tools the model is sent: those not deferred, search_tool_bm25 when some are, then the ones it found. */
  offeredTools(): Tool[] {
    return this.discovery.offer(this.tools);
  }

  private refreshFrame(): void {
    if (!this.frame.replaceTools(this.offeredTools())) return;
    this.messages.splice(0, this.messages.length, ...withoutSignedThinking(this.messages));
    this.session.persist({ type: "custom", customType: DROP_THINKING_ENTRY, data: { reason: "the tool list changed" } });
  }

  /** What the model last read of each file (see tools/edit/read-store.ts). */
  readonly fileReads = new FileReadStore();

  toolSpecs(): ToolSpec[] {
    return this.frame.toolSpecs(this.offeredTools());
  }

  contextTokens(): number {
    return contextTokens(this.messages);
  }

  /** Runs the agent on a new user message until the model stops; resolves with why it stopped. */
  prompt(content: string | (TextContent | ImageContent)[]): Promise<AgentStopReason> {
    if (this.running) throw new Error("the agent is already working; steer or queue a follow-up instead");
    this.nameHosts(content);
    const run = this.run(userMessage(content)).finally(() => {
      this.running = undefined;
    });
    this.running = run;
    return run;
  }

  /** Delivered after the current tool calls, before the model's next step. */
  steer(content: string | (TextContent | ImageContent)[]): void {
    this.nameHosts(content);
    this.steering.push(userMessage(content));
  }

  /** Delivered once the model has finished its current work. */
  followUp(content: string | (TextContent | ImageContent)[]): void {
    this.nameHosts(content);
    this.followUps.push(userMessage(content));
  }

  /** Hosts in the user's prompt may be reached without asking; a subagent's prompt is the model's words, not the user's. */
  private nameHosts(content: string | (TextContent | ImageContent)[]): void {
    if (this.options.depth) return;
    for (const part of typeof content === "string" ? [{ type: "text" as const, text: content }] : content) {
      if (part.type === "text") this.options.gate.egress?.nameIn(part.text);
    }
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

  /** Records the session's mode, so that a resume comes back in it (the host applies modes). */
  recordMode(mode: SessionMode): void {
    this.options.mode = mode;
    this.session.persist({ type: "mode_change", mode });
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

  /** One prompt's run: turns until the model stops, a limit or an abort ends it, or it fails. */
  private async run(prompt: Message): Promise<AgentStopReason> {
    const first = this.promptNote ? withNote(prompt, this.promptNote) : prompt;
    this.session.inRun = true;
    this.controller = new AbortController();
    this.runId = crypto.randomUUID();
    this.abortReason = "aborted";
    this.abortMessage = undefined;
    const run: RunState = { signal: this.controller.signal, turn: 0, pending: [first], opening: first, usage: [], overflowCompacted: false, thinkingDropped: false, stopBlocks: 0, truncated: false };
    this.streamRules?.rules.startRun();
    this.emit({ type: "agent_start" });
    // The first prompt of a new session is named by the smol model while the run goes on.
    const titling = this.messages.some((message) => message.role === "user") ? undefined : sessionTitle(this.options, first);
    let stop: RunStop;
    try {
      await this.openRun(run, first);
      for (;;) {
        const ended = await this.turn(run);
        if (ended) {
          stop = ended;
          break;
        }
      }
    } catch (thrown) {
      const { message, ...failure } = errorInfo(thrown);
      stop = { reason: "error", error: message, failure };
    } finally {
      // Taken from a queue but never sent (a limit stopped the run): keep them for the next run.
      if (run.pending.length > 0 && run.pending[0] !== run.opening) this.steering.unshift(...run.pending);
      this.controller = undefined;
      this.session.inRun = false;
    }
    return this.endRun(stop, run.usage, titling);
  }

  /** The prompt hooks may refuse the prompt; then the session's facts update rides on it. */
  private async openRun(run: RunState, first: Message): Promise<void> {
    // A subagent's prompt comes from its parent, not the user: no session or prompt hooks (as in Claude Code).
    if (this.extensions && !this.options.depth) {
      const blocked = await this.promptHooks(first);
      if (blocked !== undefined) {
        run.pending = [];
        throw new Error(blocked);
      }
    }
    await this.recallMemories(first);
    run.opening = await this.frame.withFactsUpdate(first);
    run.pending = [run.opening];
  }

  /** One model request and what follows it: why the run stops, or undefined to go on with `run.pending`. */
  private async turn(run: RunState): Promise<RunStop | undefined> {
    if (this.options.maxTurns !== undefined && run.turn >= this.options.maxTurns) {
      return { reason: "max_turns", error: `stopped after ${run.turn} model requests (--max-turns)` };
    }
    const turn = ++run.turn;
    // Before a run's next request rather than after each reply: the garbage of the last one (its
    // body, the tool results) is collected only when another request follows, never as a run ends.
    if (turn > 1) collectBetweenTurns();
    this.emit({ type: "turn_start", turn });
    this.session.throwWriteFailure();
    this.deliver(run.pending);
    run.pending = [];
    if (this.autoCompaction && this.nearContextLimit()) await this.compact("threshold");
    const watched = this.streamRules?.rules.watch(run.signal);
    const reply = await this.requestReply(run.signal, watched);
    run.usage.push(reply.usage);
    this.streamRules?.rules.manager.turnEnded();
    if (watched?.cut && !run.signal.aborted) {
      this.streamRules!.resume(run, { ...reply, content: watched.shown ?? [] }, turn, watched.cut);
      return undefined;
    }
    const recovery = await recoverRefusal({ messages: this.messages, autoCompaction: this.autoCompaction, emit: (event) => this.emit(event), persist: (entry) => this.session.persist(entry), compact: () => this.compact("overflow") }, run, reply, turn);
    if (recovery === "retry") return undefined;
    if (recovery) return recovery;
    this.record(reply);
    this.emit({ type: "message_end", message: reply });
    if (reply.stopReason === "aborted" || reply.stopReason === "error") this.streamRules?.rules.dropPending();
    if (reply.stopReason === "aborted" || run.signal.aborted) {
      this.emit({ type: "turn_end", turn, message: reply, toolResults: [] });
      return { reason: this.abortReason, error: this.abortMessage };
    }
    if (reply.stopReason === "error") {
      this.emit({ type: "turn_end", turn, message: reply, toolResults: [] });
      await this.extensions?.stopFailure?.(reply.errorMessage ?? "the provider failed", reply.failure?.kind).catch(() => undefined);
      return { reason: "error", error: reply.errorMessage, failure: reply.failure };
    }
    const calls = reply.content.filter((part): part is ToolCall => part.type === "toolCall");
    const halts: string[] = [];
    const stopped = { denied: false };
    const results = calls.length > 0 ? await this.runTools(calls, run.signal, halts, stopped) : [];
    const deferred = this.streamRules?.takeDeferred(reply);
    if (deferred) this.steering.unshift(deferred);
    const rewind = this.modelCheckpoint.observe(results, this.messages.length);
    if (rewind) rewindConversation({ messages: this.messages, session: this.session, writer: this.writer, deliver: (messages) => this.deliver(messages) }, rewind);
    this.emit({ type: "turn_end", turn, message: reply, toolResults: results });
    if (stopped.denied) return { reason: "denied" };
    if (halts.length > 0) return { reason: "hook", error: `a hook stopped the run: ${[...new Set(halts)].join("; ")}` };
    if (run.signal.aborted) return { reason: this.abortReason, error: this.abortMessage };
    return this.afterTurn(run, reply, calls.length > 0);
  }

  /** The model's reply; a usage limit before anything was streamed hands the request to another stored account. */
  private async requestReply(signal: AbortSignal, watched?: WatchedRequest): Promise<AssistantMessage> {
    let reply = await this.streamReply(watched?.signal ?? signal, watched?.withhold);
    for (let rotation = await this.rotate(reply); rotation && "apiKey" in rotation; rotation = await this.rotate(reply)) {
      this.setModel(rotation.model ?? this.model, rotation.apiKey);
      reply = await this.streamReply(watched?.signal ?? signal, watched?.withhold);
    }
    return reply;
  }

  /** What opens the next turn: tool results (with steering), then follow-ups, then what a Stop hook asks. */
  private async afterTurn(run: RunState, reply: AssistantMessage, calledTools: boolean): Promise<RunStop | undefined> {
    const steering = take(this.steering, this.steeringMode);
    if (calledTools || steering.length > 0) {
      run.pending = steering;
      return undefined;
    }
    const followUps = take(this.followUps, this.followUpMode);
    if (followUps.length > 0) {
      run.pending = followUps;
      return undefined;
    }
    if (reply.stopReason === "length") run.truncated = true;
    const goOn = run.stopBlocks < MAX_STOP_BLOCKS ? await this.extensions?.stop?.(run.stopBlocks > 0) : undefined;
    if (goOn !== undefined && !run.signal.aborted) {
      run.stopBlocks++;
      run.pending = [userMessage(`A stop hook asked you to continue:\n${goOn}`)];
      return undefined;
    }
    return { reason: run.truncated ? "length" : "stop" };
  }

  /** Saves what the run wrote (and the session's title, when one was being written) and tells how it ended. */
  private async endRun(stop: RunStop, usage: Usage[], titling: ReturnType<typeof sessionTitle> | undefined): Promise<AgentStopReason> {
    let { reason, error, failure } = stop;
    try {
      const named = await titling;
      if (named && !this.userNamed) {
        this.options.recordUsage?.(named.model, named.usage);
        this.session.persist({ type: "custom", customType: SESSION_NAME_ENTRY, data: { name: named.title } });
      }
      this.session.flush();
      this.writer?.sync();
    } catch (thrown) {
      reason = "error";
      if (error === undefined) ({ message: error, ...failure } = errorInfo(thrown));
    }
    // A failed run says its failure typed as well as in words (failed: a cause nobody classified).
    const typed = reason === "error" && error !== undefined ? { errorInfo: { kind: failure?.kind ?? "failed", message: error, retryable: failure?.retryable ?? false } } : {};
    this.emit({ type: "agent_end", stopReason: reason, ...(error === undefined ? {} : { error }), ...typed, usage: addUsage(emptyUsage(), ...usage) });
    return reason;
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
    // A refused key: the provider's words, then where the key came from and how to fix it.
    if (next && "hint" in next) reply.errorMessage = `${reply.errorMessage ?? "the key was refused"}; ${next.hint}`;
    return next && "apiKey" in next ? next : undefined;
  }

  private async streamReply(signal: AbortSignal, withhold?: (event: AssistantEvent) => boolean): Promise<AssistantMessage> {
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
        ...(this.options.onResponseHeaders ? { onResponse: (headers: Headers) => this.options.onResponseHeaders!(this.model, headers) } : {}),
        // The model's own search stands in only where omp's web_search (a configured provider) is absent.
        ...(this.options.web?.nativeSearch && !this.tools.some((tool) => tool.name === "web_search") ? { nativeWebSearch: true } : {}),
      },
      (event) => this.emit(event),
      (text) => this.redact(text),
      this.options.stream,
      withhold,
    );
    this.usage = addUsage(this.usage, final.usage);
    this.options.recordUsage?.(this.model, final.usage);
    return final;
  }

  /** Runs a reply's tool calls (see tool-calls.ts) and records their results in call order. `halts`: see ToolCallRun. */
  private async runTools(calls: ToolCall[], signal: AbortSignal, halts: string[], stopped: { denied: boolean }): Promise<ToolResultMessage[]> {
    const run: ToolCallRun = {
      tools: () => this.offeredTools(),
      unlisted: (name) => this.discovery.unlisted(name),
      deferred: (name) => this.discovery.deferredTool(name),
      context: toolContext(this.options, {
        signal,
        redact: (text) => this.redact(text),
        fileReads: this.fileReads,
        secrets: this.secrets,
        subagents: { depth: this.options.depth ?? 0, run: (request) => import("./subagent.ts").then((module) => module.runSubagent(this, request)) },
        jobScope: this,
        hasTool: (name) => this.tools.some((tool) => tool.name === name),
        callOf: (name, args) => (this.discovery.callsThrough(name) ? `${CALL_TOOL_NAME} ${JSON.stringify({ name, arguments: args })}` : `${name} ${JSON.stringify(args)}`),
        ...this.checkpointTarget(),
      }),
      gate: this.options.gate,
      hooks: this.extensions?.toolHooks,
      emit: (event) => this.emit(event),
      halts,
    };
    const ran = await runToolCalls(calls, run);
    stopped.denied = run.denied === true;
    const results = this.streamRules?.remind(ran) ?? ran;
    for (const message of results) this.record(this.tools.find((tool) => tool.name === message.toolName)?.effect === "read" ? withoutRepeat(message, this.messages) : message, true);
    return results;
  }

  /** Where this turn's tool calls record the files they change (core/session/checkpoints): the session's entry making them. */
  private checkpointTarget(): Pick<ToolContext, "checkpoints"> {
    if (this.options.checkpointsOf) return { checkpoints: this.options.checkpointsOf };
    if (!this.writer || !this.options.checkpoints?.enabled) return {};
    return { checkpoints: { session: this.writer.path, cwd: this.options.cwd, sessionId: this.writer.header.id, entryId: this.writer.leafId, turn: this.runId, maxBytes: this.options.checkpoints.maxBytes } };
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
    endSessionKernels(this);
    if (!this.options.depth) await this.options.lsp?.stop();
  }

  private nearContextLimit(): boolean {
    const { reserveTokens, thresholdPercent = -1 } = this.options.compaction;
    const window = this.model.contextWindow;
    return this.contextTokens() > (thresholdPercent > 0 ? (window * thresholdPercent) / 100 : Math.max(window - reserveTokens, window / 2));
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
      // The smol role's model writes summaries when one is configured and the part to summarise fits it.
      const smol = await this.options.roleModel?.("smol");
      const writer = smol && smol.model.contextWindow > this.contextTokens() ? smol : { model: this.model, apiKey: this.apiKey };
      const { summary, usage } = await summarize(writer.model, this.messages.slice(0, cut), {
        apiKey: writer.apiKey,
        signal: this.controller?.signal,
        instructions,
      });
      this.usage = addUsage(this.usage, usage);
      this.options.recordUsage?.(writer.model, usage);
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
      const info = errorInfo(error);
      this.emit({ type: "auto_compaction_end", error: info.message, errorInfo: info });
      return false;
    } finally {
      if (own && this.controller === own) this.controller = undefined;
    }
  }
}

function userMessage(content: string | (TextContent | ImageContent)[]): Message {
  return { role: "user", content, timestamp: Date.now() };
}

function withNote(message: Message, note: string): Message {
  if (message.role !== "user") return message;
  const content = typeof message.content === "string" ? [{ type: "text" as const, text: message.content }] : message.content;
  return { ...message, content: [{ type: "text", text: note }, ...content] };
}

function take<T>(queue: T[], mode: QueueMode): T[] {
  return mode === "all" ? queue.splice(0) : queue.splice(0, 1);
}
