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

export { ApprovalRequests, QuestionRequests } from "./requests.ts";

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

  constructor(
    readonly runtime: Runtime,
    agent: Agent,
    selection: ModelSelection,
    readonly approvals?: ApprovalRequests,
    /** The ask tool's questions and plan approvals; absent (print, json): no exit_plan_mode, plans end as replies. */
    readonly questions?: QuestionRequests,
  ) {
    this.control = new SessionControl(runtime, agent, selection);
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
      this.emit(event);
      if (event.type === "agent_end") this.emitUsage();
    });
  }

  private emitUsage(): void {
    const { usage, model } = this.agent;
    const contextTokens = this.agent.contextTokens();
    this.emit({ type: "usage", input: usage.input, output: usage.output, cacheRead: usage.cacheRead, cacheWrite: usage.cacheWrite, cost: usage.cost.total, contextTokens, contextWindow: model.contextWindow });
  }

  /** A new agent is the session's (switch, branch): events follow it, and the mode applies to it. */
  private adopt(agent: Agent, reason: SessionChange): void {
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

  private useModel(selection: ModelSelection): void {
    this.control.setModel(selection);
    this.emit({ type: "model_changed", provider: selection.model.provider, id: selection.model.id, thinking: this.agent.thinking });
  }

  /** Nobody will answer the open approvals and questions (the turn was cancelled, the front end left). */
  cancelRequests(reason: string): void {
    this.approvals?.cancelAll(reason);
    this.questions?.cancelAll(reason);
  }

  /**
   * Carries out one operation. A prompt resolves when its run ends, with why it stopped; the
   * others once done. Errors (no such model, a run already going) are thrown for the front end
   * to report.
   */
  async submit(op: HostOp): Promise<AgentStopReason | undefined> {
    const agent = this.agent;
    switch (op.type) {
      case "prompt":
        return this.prompt(op.content);
      case "steer":
      case "follow_up":
        if (!agent.isRunning) return agent.prompt(op.content);
        if (op.type === "steer") agent.steer(op.content);
        else agent.followUp(op.content);
        return undefined;
      case "abort":
        agent.abort();
        await agent.idle();
        return undefined;
      case "set_model": {
        this.useModel(await this.runtime.selectModel(op.model, false));
        return undefined;
      }
      case "set_thinking":
        if (!this.control.setThinking(op.level)) throw new Error(`${agent.model.provider}/${agent.model.id} has no thinking levels`);
        this.emit({ type: "model_changed", provider: agent.model.provider, id: agent.model.id, thinking: agent.thinking });
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
        await agent.compact("manual", op.instructions);
        return undefined;
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

  /** A prompt; `/command args` and `/skill:name args` first are expanded as in every mode. */
  private async prompt(content: (TextContent | ImageContent)[]): Promise<AgentStopReason> {
    await this.modelSwitch;
    const first = content[0];
    if (first?.type === "text" && first.text.startsWith("/")) {
      const { prepareInvocation } = await import("./invoke.ts");
      const invocation = await prepareInvocation(this.runtime, this.agent, first.text);
      if (invocation) {
        // An extension's command that did its work itself: nothing goes to the model.
        if (invocation.content.length === 0) {
          invocation.restore();
          return "stop";
        }
        try {
          return await this.agent.prompt([...invocation.content, ...content.slice(1)]);
        } finally {
          invocation.restore();
        }
      }
    }
    return this.agent.prompt(content);
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
