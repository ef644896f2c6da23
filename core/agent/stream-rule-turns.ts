import type { AssistantMessage, Message, ToolResultMessage } from "../ai/messages.ts";
import type { Rule } from "../rules/rule.ts";
import type { NewSessionEntry } from "../session/schema.ts";
import type { AgentEvent } from "./events.ts";
import type { RunState } from "./run-state.ts";
import type { StreamRules } from "./stream-rules.ts";

/** What the stream rules' turn handling needs of its agent. */
export interface RuleTurnAgent {
  emit(event: AgentEvent): void;
  /** Adds a message to the conversation and the session. */
  record(message: Message): void;
  persist(entry: NewSessionEntry): void;
}

/**
 * What a stream rule's match does to the turn loop (the watch itself is stream-rules.ts): the
 * front ends are told which rules fired, and every injection is recorded in the session, so a
 * resume does not fire those rules again.
 */
export class StreamRuleTurns {
  constructor(
    readonly rules: StreamRules,
    private readonly agent: RuleTurnAgent,
  ) {}

  /**
   * Stream rules cut the reply (`reply` holds what was shown of it, before the matching delta): it
   * is kept in the context only with `ttsr.contextMode: keep`, and then only its text; their text
   * is injected and the turn asked again.
   */
  resume(run: RunState, reply: AssistantMessage, turn: number, cut: Rule[]): void {
    // Quieter matches earlier in the cut reply go with it: their rules may fire again.
    this.rules.dropPending();
    this.agent.emit({ type: "ttsr_triggered", rules: cut.map(ruleSummary), interrupted: true });
    this.agent.emit({ type: "message_end", message: reply });
    if (this.rules.manager.settings.contextMode === "keep") {
      const text = reply.content.filter((part) => part.type === "text");
      if (text.length > 0) this.agent.record({ ...reply, content: text, stopReason: "stop" });
    }
    this.agent.emit({ type: "turn_end", turn, message: reply, toolResults: [] });
    this.noteInjected(cut);
    run.pending = [this.rules.injection(cut)];
  }

  /** A reply's tool results, the reminders of the rules their calls matched put first. */
  remind(results: ToolResultMessage[]): ToolResultMessage[] {
    const reminded = this.rules.remind(results);
    if (reminded.told.length > 0) this.told(reminded.told);
    return reminded.results;
  }

  /** The message telling the prose matches of a reply that ended well; it leads the next turn. */
  takeDeferred(reply: AssistantMessage): Message | undefined {
    if (reply.stopReason !== "stop" && reply.stopReason !== "toolUse") return undefined;
    const deferred = this.rules.takeDeferred();
    if (deferred) this.told(deferred.rules);
    return deferred?.message;
  }

  private told(rules: readonly Rule[]): void {
    this.agent.emit({ type: "ttsr_triggered", rules: rules.map(ruleSummary), interrupted: false });
    this.noteInjected(rules);
  }

  private noteInjected(rules: readonly Rule[]): void {
    this.agent.persist({ type: "ttsr_injection", injectedRules: rules.map((rule) => rule.name) });
  }
}

function ruleSummary(rule: Rule): { name: string; path: string; description?: string } {
  return { name: rule.name, path: rule.path, ...(rule.description ? { description: rule.description } : {}) };
}
