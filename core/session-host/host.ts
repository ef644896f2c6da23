import type { Agent } from "../agent/agent.ts";
import type { AgentEvent, AgentStopReason } from "../agent/events.ts";
import type { ModelSelection, Runtime } from "../agent/runtime.ts";
import { SessionControl } from "../agent/session-control.ts";
import type { ImageContent, TextContent } from "../ai/messages.ts";
import { SYSTEM_NOTE, type SessionMode, approvedMode } from "../session/modes.ts";
import { presentTool } from "../tools/presentation.ts";
import type { HostOp, HostOwnEvent, SessionChange } from "./protocol.ts";
import { planModeTool } from "../tools/registry.ts";
import type { ApprovalRequests, QuestionRequests } from "./requests.ts";
import { MessageQueue, type QueueKind, type QueuedMessage } from "./queue.ts";
import { SessionShell, type ShellOutcome } from "./shell.ts";
import { type PreparedInput, prepareInput } from "./input.ts";

export { ApprovalRequests, QuestionRequests } from "./requests.ts";

export type { QueuedMessage, QueueKind, ShellOutcome };

/**
 * What a front end reads of the session's agent: its state, never its controls (prompts, steering,
 * aborts and model switches go through submit).
 */
export type SessionView = Pick<
  Agent,
  "model" | "thinking" | "usage" | "messages" | "writer" | "warnings" | "isRunning" | "contextTokens" | "artifactsDir" | "redact" | "options" | "steeringMode" | "followUpMode" | "autoCompaction" | "queuedCount" | "idle" | "tools"
>;

/** What became of a message as the host took it: shown by the front end (rpc's response, print's stderr, the terminal's notices). */
export type Accepted = Omit<PreparedInput, "content" | "restore"> & {
  /** Queued while a run goes, to be taken at a turn's end; absent when it started a run. */
  queued?: QueueKind;
};

/** How a front end follows one operation beyond its result. */
export interface SubmitObserver {
  /** A message was expanded and is about to run, or was queued: before any of its run's events. */
  accepted?(accepted: Accepted): void;
  /** A shell command's output as it comes. */
  output?(piece: string): void;
}

type BashOp = Extract<HostOp, { type: "bash" }>;
type CompactOp = Extract<HostOp, { type: "compact" }>;

/** Everything a host reports: the agent's events, unchanged, and its own (protocol.ts). */
export type HostEvent = AgentEvent | HostOwnEvent;

const OWN_EVENTS: ReadonlySet<string> = new Set<HostOwnEvent["type"]>(["tool_call", "approval_request", "question_request", "mode_changed", "model_changed", "session_changed", "usage"]);

/** True for the agent's own events (rpc and json pass exactly these on). */
export function isAgentEvent(event: HostEvent): event is AgentEvent {
  return !OWN_EVENTS.has(event.type);
}

/** Why plan mode refuses a call, and what each prompt in plan mode reminds the model of: with someone to approve a plan (exit_plan_mode), or without. */
const PLAN_MODE = {
  refusal: "the session is in plan mode, which only reads and plans. Present your plan with exit_plan_mode instead; once the user approves it, changes can run.",
  note: `${SYSTEM_NOTE}Plan mode: only read-only tools and commands run; changes are refused. Research the task, then call exit_plan_mode with your plan for the user to approve.</system-reminder>`,
};
const PLAN_MODE_UNATTENDED = {
  refusal: "the session is in plan mode, which only reads and plans. Describe the change in your plan instead; the user leaves plan mode to let it happen.",
  note: `${SYSTEM_NOTE}Plan mode: only read-only tools and commands run; changes are refused. Research the task, then end your turn with your plan.</system-reminder>`,
};

/**
 * One session as every front end drives it: operations in (submit), events out (subscribe).
 * It owns the agent across session switches and branches (through SessionControl), presents
 * tool calls, carries approvals as requests on the stream, and applies session modes to the
 * approval gate. Print, json, rpc and ACP are adapters over it.
 */
export class SessionHost {
  private readonly control: SessionControl;
  private readonly listeners = new Set<(event: HostEvent) => void>();
  private unsubscribe: () => void;
  private currentMode: SessionMode = "default";
  /** Open question requests that are plans: approving one switches the mode. */
  private readonly planRequests = new Set<string>();
  /** The model plan mode replaced with the `plan` role's, and that one: leaving plan mode goes back unless the user chose another meanwhile. */
  private beforePlan: { selection: ModelSelection; plan: ModelSelection } | undefined;
  private modelSwitch: Promise<void> = Promise.resolve();
  /** Why the next agent the control switches to is the session's; a front end's own switch (interactive /new) is "new" or "resume". */
  private switching: SessionChange | undefined;
  /** Messages sent while a run goes: one queue for every front end. */
  private readonly queue = new MessageQueue();
  /** Messages being expanded that will start a run. */
  private preparing = 0;
  /** The running prompt was interrupted: what is queued is not handed over. */
  private interrupted = false;
  /** The user's own shell commands. */
  readonly shell: SessionShell;

  constructor(
    readonly runtime: Runtime,
    agent: Agent,
    selection: ModelSelection,
    readonly approvals?: ApprovalRequests,
    /** The ask tool's questions and plan approvals; absent (print, json): no exit_plan_mode, plans end as replies. */
    readonly questions?: QuestionRequests,
  ) {
    this.control = new SessionControl(runtime, agent, selection);
    this.shell = new SessionShell(() => this.agent, runtime.options.settings.bash.timeoutSeconds);
    if (approvals) {
      approvals.emit = (event) => this.emit(event);
      approvals.cwd = runtime.options.cwd;
    }
    if (questions) {
      questions.timeoutMs = runtime.options.settings.questions.timeoutSeconds * 1000;
      questions.emit = (event) => {
        if (event.type === "question_request" && event.kind === "plan") this.planRequests.add(event.id);
        this.emit(event);
      };
    }
    this.unsubscribe = this.follow(agent);
    // Switches made on the control directly (the interactive mode's /new, /resume, /tree) are the host's too.
    this.control.onSwitch((next) => {
      const reason = this.switching ?? (next.messages.length > 0 ? "resume" : "new");
      this.switching = undefined;
      this.adopt(next, reason);
    });
  }

  get agent(): Agent {
    return this.control.agent;
  }

  /** The session's state for front ends. */
  get view(): SessionView {
    return this.control.agent;
  }

  /** A run goes, or a message that starts one is being expanded: what is sent now is queued. */
  get isRunning(): boolean {
    return this.preparing > 0 || this.agent.isRunning;
  }

  /** Messages queued while the agent works, oldest first. */
  get queued(): readonly QueuedMessage[] {
    return this.queue.messages;
  }

  /** Messages waiting, here and those the agent was handed but has not taken yet. */
  get queuedCount(): number {
    return this.queue.length + this.agent.queuedCount;
  }

  /** Takes the queued messages back (the terminal puts them in its editor before an interrupt). */
  takeQueued(): QueuedMessage[] {
    return this.queue.take();
  }

  /** How many queued steering and follow-up messages the agent takes at once. */
  setQueueModes(modes: { steering?: "one-at-a-time" | "all"; followUp?: "one-at-a-time" | "all" }): void {
    if (modes.steering) this.agent.steeringMode = modes.steering;
    if (modes.followUp) this.agent.followUpMode = modes.followUp;
  }

  setAutoCompaction(enabled: boolean): void {
    this.agent.autoCompaction = enabled;
  }

  get selection(): ModelSelection {
    return this.control.selection;
  }

  get mode(): SessionMode {
    return this.currentMode;
  }

  /** The session switching and naming the interactive mode and rpc share. */
  get sessionControl(): SessionControl {
    return this.control;
  }

  subscribe(listener: (event: HostEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private emit(event: HostEvent): void {
    for (const listener of this.listeners) listener(event);
  }

  private follow(agent: Agent): () => void {
    // A resumed session comes back in its mode; a new one keeps the current mode, and records it.
    if (agent.options.mode === undefined && this.currentMode !== "default") agent.recordMode(this.currentMode);
    this.currentMode = agent.options.mode ?? this.currentMode;
    this.applyMode(agent);
    return agent.subscribe((event) => {
      if (event.type === "tool_execution_start") {
        this.emit({ type: "tool_call", toolCallId: event.toolCallId, toolName: event.toolName, input: event.args, presentation: presentTool(event.toolName, event.args, this.runtime.options.cwd) });
      }
      if (event.type === "agent_start") this.interrupted = false;
      this.emit(event);
      // The agent takes steering (and, after a final reply, follow-ups) right after this event.
      if (event.type === "turn_end" && !this.interrupted) this.queue.handOver(agent, event.message.content.some((part) => part.type === "toolCall"));
      if (event.type === "agent_end") {
        this.emitUsage();
        // Sent just as the run finished: the first queued message starts the next one.
        if (!this.interrupted && this.queue.length > 0) void agent.idle().then(() => this.sendQueued(agent));
      }
    });
  }

  private sendQueued(agent: Agent): void {
    if (agent !== this.agent || this.isRunning) return;
    const next = this.queue.shift();
    if (next) agent.prompt(next.content).catch(() => undefined);
  }

  private emitUsage(): void {
    const { usage, model } = this.agent;
    const contextTokens = this.agent.contextTokens();
    this.emit({ type: "usage", input: usage.input, output: usage.output, cacheRead: usage.cacheRead, cacheWrite: usage.cacheWrite, cost: usage.cost.total, contextTokens, contextWindow: model.contextWindow });
  }

  /** A new agent is the session's (switch, branch): events follow it, and the mode applies to it. */
  private adopt(agent: Agent, reason: SessionChange): void {
    // What was queued or run for the previous session does not go to this one.
    this.queue.take();
    this.shell.clearContext();
    this.unsubscribe();
    this.unsubscribe = this.follow(agent);
    this.emit({ type: "session_changed", reason, sessionId: agent.writer?.header.id ?? "none", ...(agent.writer ? { path: agent.writer.path } : {}) });
  }

  /**
   * Modes are approval policies on the session's gate (default is the approvalMode setting); plan
   * mode also reminds the model at each prompt and offers exit_plan_mode while someone can approve.
   */
  private applyMode(agent: Agent): void {
    const plan = this.currentMode === "plan" ? (this.questions ? PLAN_MODE : PLAN_MODE_UNATTENDED) : undefined;
    const gate = agent.options.gate;
    gate.readOnly = plan?.refusal;
    gate.acceptEdits = this.currentMode === "auto-accept";
    agent.promptNote = plan?.note;
    const offered = agent.tools.includes(planModeTool);
    if (plan && this.questions && !offered) agent.setTools([...agent.tools, planModeTool]);
    else if (!plan && offered) agent.setTools(agent.tools.filter((tool) => tool !== planModeTool));
  }

  /** Plan mode runs on the `plan` role's model when one is configured (modelRoles.plan, --plan) and usable. */
  private async modelForMode(from: SessionMode, to: SessionMode): Promise<void> {
    if (to === "plan" && from !== "plan") {
      const { modelForRole, rolePatterns } = await import("../agent/model-roles.ts");
      if (rolePatterns(this.runtime).plan === undefined) return;
      const role = await modelForRole(this.runtime, "plan", this.selection).catch(() => undefined);
      const current = this.selection.model;
      if (!role || role.fallback || (role.selection.model.provider === current.provider && role.selection.model.id === current.id)) return;
      this.beforePlan = { selection: this.selection, plan: role.selection };
      this.useModel(role.selection);
    } else if (from === "plan" && to !== "plan" && this.beforePlan) {
      const { selection, plan } = this.beforePlan;
      this.beforePlan = undefined;
      if (this.selection === plan) this.useModel(selection);
    }
  }

  /**
   * Every model switch of the session (set_model, a picker's choice, plan mode's role): the agent
   * switches and the host says so, whichever front end asked.
   */
  useModel(selection: ModelSelection): void {
    this.control.setModel(selection);
    this.emitModel();
  }

  /** The next model of the cycle (`--models`, else every model with a key); undefined when there is none. */
  async cycleModel(direction: 1 | -1 = 1): Promise<ModelSelection | undefined> {
    const selection = await this.control.cycleModel(direction);
    if (selection) this.emitModel();
    return selection;
  }

  /** The model's next thinking level; undefined when it has none. */
  cycleThinking(): ReturnType<SessionControl["cycleThinking"]> {
    const level = this.control.cycleThinking();
    if (level !== undefined) this.emitModel();
    return level;
  }

  private emitModel(): void {
    const { model } = this.agent;
    this.emit({ type: "model_changed", provider: model.provider, id: model.id, thinking: this.agent.thinking });
  }

  /**
   * Stops the running prompt and drops what was queued (a front end that gives it back takes it
   * first); `message` becomes agent_end's error (a signal, a time limit). The abort op is this.
   */
  async stop(reason: "aborted" | "max_time" = "aborted", message?: string): Promise<void> {
    this.interrupted = true;
    this.queue.take();
    this.agent.abort(reason, message);
    await this.agent.idle();
  }

  /** Nobody will answer the open approvals and questions (the turn was cancelled, the front end left). */
  cancelRequests(reason: string): void {
    this.approvals?.cancelAll(reason);
    this.questions?.cancelAll(reason);
  }

  /**
   * Carries out one operation. A prompt resolves when its run ends, with why it stopped; the
   * others once done; a shell command with how it ended. Errors (no such model, a run already
   * going) are thrown for the front end to report.
   */
  submit(op: BashOp, observer?: SubmitObserver): Promise<ShellOutcome>;
  /** Compact: whether there was anything to compact. */
  submit(op: CompactOp, observer?: SubmitObserver): Promise<boolean>;
  submit(op: Exclude<HostOp, BashOp | CompactOp>, observer?: SubmitObserver): Promise<AgentStopReason | undefined>;
  submit(op: HostOp, observer?: SubmitObserver): Promise<AgentStopReason | ShellOutcome | boolean | undefined>;
  async submit(op: HostOp, observer: SubmitObserver = {}): Promise<AgentStopReason | ShellOutcome | boolean | undefined> {
    const agent = this.agent;
    switch (op.type) {
      case "prompt":
        if (this.isRunning) throw new Error("the agent is working: steer it or queue a follow-up instead");
        return this.prompt(op.content, observer);
      case "steer":
      case "follow_up":
        if (!this.isRunning) return this.prompt(op.content, observer);
        await this.enqueue(op.type === "steer" ? "steer" : "followUp", op.content, observer);
        return undefined;
      case "abort":
        await this.stop("aborted");
        return undefined;
      case "bash":
        return this.shell.run(op.command, op.share ?? true, observer.output);
      case "abort_bash":
        await this.shell.stop();
        return undefined;
      case "set_model": {
        this.useModel(await this.runtime.selectModel(op.model, false));
        return undefined;
      }
      case "set_thinking":
        if (!this.control.setThinking(op.level)) throw new Error(`${agent.model.provider}/${agent.model.id} has no thinking levels`);
        this.emitModel();
        return undefined;
      case "set_mode": {
        const from = this.currentMode;
        if (op.mode !== from) agent.recordMode(op.mode);
        this.currentMode = op.mode;
        this.applyMode(agent);
        this.emit({ type: "mode_changed", mode: op.mode });
        // The gate changed at once (above); a prompt waits for the model to follow the mode.
        this.modelSwitch = this.modelForMode(from, op.mode);
        await this.modelSwitch;
        return undefined;
      }
      case "compact":
        if (agent.isRunning) throw new Error("abort the running turn first");
        return agent.compact("manual", op.instructions);
      case "branch":
        await this.branch(op.entryId);
        return undefined;
      case "navigate":
        await this.navigate(op.entryId);
        return undefined;
      case "set_label":
        await this.control.label(op.entryId, op.label);
        return undefined;
      case "fork":
        await this.as("fork", () => this.control.fork());
        return undefined;
      case "handoff":
        await this.handoff(op.goal);
        return undefined;
      case "rewind":
        await this.rewind(op.entryId, op.scope);
        return undefined;
      case "switch_session":
        await this.switchSession(op.path);
        return undefined;
      case "answer_approval":
        if (!this.approvals?.answer(op.id, { allow: op.allow, ...(op.remember ? { remember: true } : {}), ...(op.reason ? { reason: op.reason } : {}), ...(op.edited !== undefined ? { edited: op.edited } : {}) })) {
          throw new Error(`no approval ${op.id} is waiting for an answer`);
        }
        return undefined;
      case "answer_question": {
        if (!this.questions?.has(op.id)) throw new Error(`no question ${op.id} is waiting for an answer`);
        // An approved plan switches the mode first: the model carries it out in the same run.
        const mode = this.planRequests.delete(op.id) ? approvedMode(op.answers?.[0]?.[0]) : undefined;
        if (mode) await this.submit({ type: "set_mode", mode });
        this.questions.answer(op.id, op.answers ? { answers: op.answers, ...(op.plan !== undefined ? { plan: op.plan } : {}) } : { unanswered: "the user dismissed the question to answer later" });
        return undefined;
      }
    }
  }

  /** The branch op, with the user message's text (a front end puts it back in its editor). */
  branch(entryId: string): Promise<{ agent: Agent; text: string }> {
    return this.as("branch", () => this.control.branch(entryId));
  }

  /** The navigate op, with where the leaf went and, for a user message, its text. */
  navigate(entryId: string): Promise<{ agent: Agent; leafId: string | null; text?: string }> {
    return this.as("branch", () => this.control.navigate(entryId));
  }

  /** The handoff op, with the brief and the new session's file. */
  handoff(goal?: string): Promise<{ agent: Agent; brief: string; path: string }> {
    return this.as("handoff", () => this.control.handoff(goal));
  }

  /** The rewind op, with what happened to the files and the message's text (rewind.ts). */
  async rewind(entryId: string, scope: "conversation" | "files" | "both"): Promise<import("./rewind.ts").RewindOutcome> {
    const { rewindSession } = await import("./rewind.ts");
    return rewindSession(this, entryId, scope);
  }

  /** The switch_session op, with the warning when a resumed session's model is not available now. */
  switchSession(path?: string): Promise<{ agent: Agent; warning?: string }> {
    return this.as(path ? "resume" : "new", () => this.control.switchSession(path));
  }

  /** Runs a switch of the control, which the session_changed event then reports as `reason`. */
  private async as<T>(reason: SessionChange, work: () => Promise<T>): Promise<T> {
    this.switching = reason;
    try {
      return await work();
    } finally {
      this.switching = undefined;
    }
  }

  /**
   * A message that starts a run: expanded as in every mode (input.ts), with the output of the
   * user's shared shell commands after it.
   */
  private async prompt(content: (TextContent | ImageContent)[], observer: SubmitObserver): Promise<AgentStopReason> {
    this.preparing++;
    let input: PreparedInput;
    try {
      await this.modelSwitch;
      input = await prepareInput(this.runtime, this.agent, content, true);
    } finally {
      this.preparing--;
    }
    const { content: expanded, restore, ...accepted } = input;
    observer.accepted?.(accepted);
    try {
      // An extension's command that did its work itself, or one a hook blocked: nothing goes to the model.
      if (input.handled) return "stop";
      return await this.agent.prompt([...expanded, ...this.shell.takeContext()]);
    } finally {
      restore();
    }
  }

  /** A message sent while a run goes, expanded now and queued until the agent takes it. */
  private async enqueue(kind: QueueKind, content: (TextContent | ImageContent)[], observer: SubmitObserver): Promise<void> {
    const input = await prepareInput(this.runtime, this.agent, content, false);
    const { content: expanded, restore, ...accepted } = input;
    restore();
    observer.accepted?.({ ...accepted, ...(input.handled ? {} : { queued: kind }) });
    if (input.handled) return;
    const text = content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("\n");
    this.queue.push({ kind, text, content: [...expanded, ...this.shell.takeContext()] });
    // The run ended while the message was being expanded: it starts the next one.
    if (!this.interrupted) this.sendQueued(this.agent);
  }

  /** The user left (SessionEnd hooks hear why); the file stays open for what the front end still reads of it. */
  async end(reason: Parameters<Agent["end"]>[0]): Promise<void> {
    this.cancelRequests("the session ended");
    await this.agent.end(reason);
  }

  /** The session is over: nobody answers open questions any more, SessionEnd hooks run, the file is closed. */
  async close(): Promise<void> {
    this.cancelRequests("the session was closed");
    await this.agent.idle();
    await this.agent.end("other");
    this.agent.writer?.close();
    this.unsubscribe();
  }
}
