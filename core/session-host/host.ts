import type { Agent } from "../agent/agent.ts";
import type { AgentEvent, AgentStopReason } from "../agent/events.ts";
import type { ModelSelection, Runtime } from "../agent/runtime.ts";
import { SessionControl } from "../agent/session-control.ts";
import type { ImageContent, TextContent } from "../ai/messages.ts";
import type { ApprovalDecision, ApprovalRequest, Approver } from "../tools/approval.ts";
import { presentTool } from "../tools/presentation.ts";
import type { HostOp, HostOwnEvent, SessionChange, SessionMode } from "./protocol.ts";

/** Everything a host reports: the agent's events, unchanged, and its own (protocol.ts). */
export type HostEvent = AgentEvent | HostOwnEvent;

const OWN_EVENTS: ReadonlySet<string> = new Set<HostOwnEvent["type"]>(["tool_call", "approval_request", "mode_changed", "model_changed", "session_changed", "usage"]);

/** True for the agent's own events (rpc and json pass exactly these on). */
export function isAgentEvent(event: HostEvent): event is AgentEvent {
  return !OWN_EVENTS.has(event.type);
}

/**
 * Approvals as requests on the host's event stream: the runtime's approver, answered by whichever
 * front end listens (answer_approval). Made before the runtime, which needs the approver.
 */
export class ApprovalRequests {
  private serial = 0;
  private readonly waiting = new Map<string, (decision: ApprovalDecision) => void>();
  emit: ((event: HostOwnEvent) => void) | undefined;
  cwd = "";

  readonly ask: Approver = (request: ApprovalRequest) => {
    const id = `approval_${++this.serial}`;
    return new Promise<ApprovalDecision>((resolve) => {
      this.waiting.set(id, resolve);
      this.emit?.({
        type: "approval_request",
        id,
        toolName: request.toolName,
        effect: request.effect,
        input: request.input,
        summary: request.summary,
        ...(request.outside ? { outside: request.outside } : {}),
        ...(request.toolCallId ? { toolCallId: request.toolCallId } : {}),
        ...(request.kind ? { kind: request.kind } : {}),
        ...(request.rememberAs ? { rememberAs: request.rememberAs } : {}),
        presentation: presentTool(request.toolName, request.input, this.cwd),
      });
    });
  };

  /** False when no question has that id (answered already, or never asked). */
  answer(id: string, decision: ApprovalDecision): boolean {
    const resolve = this.waiting.get(id);
    if (!resolve) return false;
    this.waiting.delete(id);
    resolve(decision);
    return true;
  }

  /** Nobody is left to answer (the front end went away): every open question is denied with `reason`. */
  cancelAll(reason: string): void {
    for (const id of [...this.waiting.keys()]) this.answer(id, { allow: false, reason });
  }
}

/** Why plan mode refuses a call; the model reads it. */
const PLAN_MODE = "the session is in plan mode, which only reads and plans. Describe the change instead; the user leaves plan mode to let it happen.";

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
  /** Why the next agent the control switches to is the session's; a front end's own switch (interactive /new) is "new" or "resume". */
  private switching: SessionChange | undefined;

  constructor(
    readonly runtime: Runtime,
    agent: Agent,
    selection: ModelSelection,
    readonly approvals?: ApprovalRequests,
  ) {
    this.control = new SessionControl(runtime, agent, selection);
    if (approvals) {
      approvals.emit = (event) => this.emit(event);
      approvals.cwd = runtime.options.cwd;
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

  /** Modes are approval policies on the session's gate: default is the approvalMode setting. */
  private applyMode(agent: Agent): void {
    const gate = agent.options.gate;
    gate.readOnly = this.currentMode === "plan" ? PLAN_MODE : undefined;
    gate.acceptEdits = this.currentMode === "auto-accept";
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
        const selection = await this.runtime.selectModel(op.model, false);
        this.control.setModel(selection);
        this.emit({ type: "model_changed", provider: selection.model.provider, id: selection.model.id, thinking: this.agent.thinking });
        return undefined;
      }
      case "set_thinking":
        if (!this.control.setThinking(op.level)) throw new Error(`${agent.model.provider}/${agent.model.id} has no thinking levels`);
        this.emit({ type: "model_changed", provider: agent.model.provider, id: agent.model.id, thinking: agent.thinking });
        return undefined;
      case "set_mode":
        this.currentMode = op.mode;
        this.applyMode(agent);
        this.emit({ type: "mode_changed", mode: op.mode });
        return undefined;
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
        if (!this.approvals?.answer(op.id, { allow: op.allow, ...(op.remember ? { remember: true } : {}), ...(op.reason ? { reason: op.reason } : {}) })) {
          throw new Error(`no approval ${op.id} is waiting for an answer`);
        }
        return undefined;
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
    const first = content[0];
    if (first?.type === "text" && first.text.startsWith("/")) {
      const { prepareInvocation } = await import("../extensions/invoke.ts");
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
    this.approvals?.cancelAll("the session was closed");
    await this.agent.idle();
    await this.agent.end("other");
    this.agent.writer?.close();
    this.unsubscribe();
  }
}
