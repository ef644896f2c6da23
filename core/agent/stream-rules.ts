import type { AssistantEvent } from "../ai/stream.ts";
import type { AssistantMessage, Message, TextContent, ToolResultMessage } from "../ai/messages.ts";
import type { Rule } from "../rules/rule.ts";
import { StreamWatch } from "../rules/stream-watch.ts";
import { type TtsrManager, interruptText, reminderText } from "../rules/ttsr.ts";

/** A cut can only happen this often in one run, whatever the repeat policy: no rule set can loop a run forever. */
const MAX_CUTS_PER_RUN = 8;

/** One model request under watch: the signal to send it with, and what decides whether an event is withheld. */
export interface WatchedRequest {
  signal: AbortSignal;
  withhold: (event: AssistantEvent) => boolean;
  /** The rules that cut the reply, once one did. */
  cut?: Rule[];
  /** The reply's text and thinking as the front ends were shown it when it was cut (no tool calls: they never run). */
  shown?: AssistantMessage["content"];
}

/** What had been passed on before `event`, the one that matched: its own delta taken off, tool calls left out. */
function shownBefore(event: AssistantEvent): AssistantMessage["content"] {
  if (!("partial" in event)) return [];
  const cut = "delta" in event && "contentIndex" in event ? { index: event.contentIndex, length: event.delta.length } : undefined;
  return event.partial.content.flatMap((part, index): AssistantMessage["content"] => {
    const drop = cut?.index === index ? cut.length : 0;
    if (part.type === "text") return part.text.length > drop ? [{ ...part, text: part.text.slice(0, part.text.length - drop) }] : [];
    if (part.type === "thinking") return part.thinking.length > drop ? [{ type: "thinking" as const, thinking: part.thinking.slice(0, part.thinking.length - drop) }] : [];
    return [];
  });
}

/**
 * The agent's side of the stream rules (TTSR, see core/rules/ttsr.ts): a request whose stream
 * matches an interrupting rule is aborted at that delta (the rest is never shown), then the turn
 * is asked again with the rule's text; a match that does not interrupt is told after the reply
 * (prose) or with the matched call's result (a tool call).
 */
export class StreamRules {
  /** Prose matches that do not interrupt: injected after the reply ends well. */
  private deferred: Rule[] = [];
  /** Tool-call matches that do not interrupt, by call id: their reminder leads the call's result. */
  private perTool = new Map<string, Rule[]>();
  private cuts = 0;

  constructor(readonly manager: TtsrManager) {}

  /** A new prompt's run: the cut budget starts again. */
  startRun(): void {
    this.cuts = 0;
  }

  /** Watches one request; `runSignal` still aborts it as before. */
  watch(runSignal: AbortSignal): WatchedRequest {
    const controller = new AbortController();
    const watcher = new StreamWatch(this.manager);
    const request: WatchedRequest = {
      signal: AbortSignal.any([runSignal, controller.signal]),
      withhold: (event) => {
        if (request.cut) return event.type !== "done" && event.type !== "error";
        if (event.type === "retry" && event.discarded) watcher.restart();
        const match = watcher.observe(event);
        if (!match) return false;
        const interrupting = match.rules.some((rule) => this.manager.interrupts(rule, match.context.source));
        if (interrupting && this.cuts < MAX_CUTS_PER_RUN && !runSignal.aborted) {
          this.cuts++;
          request.cut = match.rules;
          request.shown = shownBefore(event);
          controller.abort();
          return true;
        }
        // Told later, once: the rule stops matching for the rest of this request.
        this.manager.markInjected(match.rules.map((rule) => rule.name));
        if (match.toolCallId) this.perTool.set(match.toolCallId, [...(this.perTool.get(match.toolCallId) ?? []), ...match.rules]);
        else this.deferred.push(...match.rules);
        return false;
      },
    };
    return request;
  }

  /** The rules a cut injects: marked as injected, and the message that asks again with their text. */
  injection(rules: readonly Rule[]): Message {
    this.manager.markInjected(rules.map((rule) => rule.name));
    return { role: "user", content: interruptText(rules), timestamp: Date.now() };
  }

  /** Prose matches told after a reply that ended well; undefined when there are none. */
  takeDeferred(): { rules: Rule[]; message: Message } | undefined {
    if (this.deferred.length === 0) return undefined;
    const rules = this.deferred;
    this.deferred = [];
    return { rules, message: { role: "user", content: interruptText(rules), timestamp: Date.now() } };
  }

  /** A reply that failed or was aborted: its calls never run, so their matches count as not told. */
  dropPending(): void {
    for (const rules of [...this.perTool.values(), this.deferred]) this.manager.forget(rules.map((rule) => rule.name));
    this.perTool.clear();
    this.deferred = [];
  }

  /** The results with the reminders of their calls' rules put first; the rules told. */
  remind(results: ToolResultMessage[]): { results: ToolResultMessage[]; told: Rule[] } {
    const told: Rule[] = [];
    const out = results.map((result) => {
      const rules = this.perTool.get(result.toolCallId);
      if (!rules) return result;
      this.perTool.delete(result.toolCallId);
      told.push(...rules);
      const lead: TextContent = { type: "text", text: reminderText(rules) };
      return { ...result, content: [lead, ...result.content] };
    });
    return { results: out, told };
  }
}
