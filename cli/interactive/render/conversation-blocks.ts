import type { AgentEvent } from "../../../core/agent/events.ts";
import { withoutSystemNotes } from "../../../core/session/modes.ts";
import type { Message, ToolCall, UserMessage } from "../../../core/ai/messages.ts";
import { namedCall } from "../../../core/tools/discovery/tool-discovery.ts";
import { COMPACTION_SUMMARY_PREFIX } from "../../../core/session/compaction-summary.ts";
import { AssistantBlock, UserBlock, type View, notice } from "./blocks.ts";
import { ToolBlock } from "./tool-block.ts";
import { injectedRuleNames } from "../../../core/rules/ttsr.ts";
import type { Block } from "./transcript.ts";

/** A resumed session shows this many of its last messages. */
const REPLAY_MESSAGES = 60;

/**
 * The conversation as transcript blocks: the agent's events become user, assistant and tool
 * blocks as they happen, and a resumed conversation is drawn the same way.
 */
export class ConversationBlocks {
  private current: AssistantBlock | undefined;
  /** A stream rule cut the reply being shown: it ends without the "Interrupted" mark (the turn goes on). */
  private cutByRule = false;
  private readonly tools = new Map<string, ToolBlock>();

  constructor(
    private readonly view: View,
    private readonly add: (block: Block) => void,
  ) {}

  apply(event: AgentEvent): void {
    switch (event.type) {
      case "message_start": {
        const message = event.message;
        if (message.role === "assistant") {
          this.current = new AssistantBlock(this.view);
          this.add(this.current);
        } else if (message.role === "user") {
          this.showUserMessage(message);
        }
        break;
      }
      case "message_update": {
        const delta = event.assistantMessageEvent;
        if (delta.type === "toolcall_end") this.called(delta.toolCall);
        else this.current?.apply(delta);
        break;
      }
      case "message_end": {
        const message = event.message;
        if (message.role === "assistant") {
          // A reply a stream rule cut: its text as far as shown, none of its calls (they never run).
          const shown = this.cutByRule ? { ...message, stopReason: "stop" as const, content: message.content.filter((part) => part.type !== "toolCall") } : message;
          this.cutByRule = false;
          this.current?.finish(shown);
          this.current = undefined;
          for (const part of shown.content) {
            if (part.type === "toolCall") this.called(part);
          }
          if (message.stopReason === "aborted" || message.stopReason === "error") this.cancelTools();
        } else if (message.role === "toolResult") {
          this.tools.get(message.toolCallId)?.finished(message);
        }
        break;
      }
      case "tool_execution_start":
        this.toolBlock(event.toolCallId, event.toolName).started(event.args);
        break;
      case "tool_execution_update":
        this.tools.get(event.toolCallId)?.progress(event.output);
        break;
      case "ttsr_triggered":
        if (event.interrupted) this.cutByRule = true;
        else this.add(notice(this.view, "info", `Rule reminder: ${event.rules.map((rule) => rule.name).join(", ")}`));
        break;
      case "auto_retry_start":
        // The reply shown so far was dropped; the retry's reply gets a block of its own.
        if (event.discarded) this.current = undefined;
        break;
      case "agent_end":
        this.cancelTools();
        break;
    }
  }

  /** A resumed conversation, drawn as if it had just happened (its last messages). */
  showConversation(messages: readonly Message[], from: string): void {
    const shown = messages.slice(-REPLAY_MESSAGES);
    this.add(notice(this.view, "info", `Resumed ${from} (${messages.length} messages)${shown.length < messages.length ? `; showing the last ${shown.length}` : ""}.`));
    this.showMessages(shown);
  }

  /** Messages drawn as if they had just happened (a resumed session, a collab host's conversation at join). */
  showMessages(messages: readonly Message[]): void {
    for (const message of messages) {
      if (message.role === "user") this.showUserMessage(message);
      else if (message.role === "assistant") {
        const block = new AssistantBlock(this.view);
        block.finish(message);
        this.add(block);
        for (const part of message.content) if (part.type === "toolCall") this.called(part);
      } else this.tools.get(message.toolCallId)?.finished(message);
    }
    this.cancelTools();
  }

  /** A call as the model made it; one through call_tool shows as the tool it runs. */
  private called(call: Pick<ToolCall, "id" | "name" | "arguments">): void {
    const { name, arguments: args } = namedCall(call.name, call.arguments);
    this.toolBlock(call.id, name).called(name, args);
  }

  private toolBlock(id: string, name: string): ToolBlock {
    let block = this.tools.get(id);
    if (!block) {
      block = new ToolBlock(this.view, id, name);
      this.tools.set(id, block);
      this.add(block);
    }
    return block;
  }

  /** Calls that will never get a result (an aborted or failed turn) stop spinning. */
  private cancelTools(): void {
    for (const block of this.tools.values()) block.cancel();
    this.tools.clear();
  }

  private showUserMessage(message: UserMessage): void {
    const all = typeof message.content === "string" ? [{ type: "text" as const, text: message.content }] : message.content;
    // What omp added for the model (plan mode's reminder) is not the user's to see again.
    const parts = withoutSystemNotes(all);
    const first = parts[0];
    const text = first?.type === "text" ? first.text : "";
    const rules = injectedRuleNames(text);
    if (rules) {
      this.add(notice(this.view, "info", `Injecting rule: ${rules.join(", ")}`));
      return;
    }
    if (text.startsWith(COMPACTION_SUMMARY_PREFIX)) {
      this.add(notice(this.view, "info", "The earlier conversation was compacted into a summary."));
      return;
    }
    const extras = parts.length - (first?.type === "text" ? 1 : 0);
    this.add(new UserBlock(this.view, text, extras > 0 ? `+${extras} attached` : undefined));
  }
}
