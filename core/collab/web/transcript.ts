/**
 * The web guest's transcript: the session's messages (as the welcome carries them) and the live
 * events after, in the session host's vocabulary (core/agent/events.ts, core/session-host/protocol.ts).
 * Only textContent is written, so nothing the model or a tool says can become markup.
 */
type Block = { type: "text"; text: string } | { type: "thinking"; thinking: string } | { type: "toolCall"; id: string; name: string; arguments: Record<string, unknown> } | { type: "image" };
type Message =
  | { role: "user"; content: string | Block[] }
  | { role: "assistant"; content: Block[]; errorMessage?: string }
  | { role: "toolResult"; toolCallId: string; toolName: string; content: Block[]; isError: boolean };
type Event = { type: string } & Record<string, unknown>;

/** A tool result longer than this is cut in the page (the host has it whole). */
const MAX_RESULT_CHARS = 4000;

function element<K extends keyof HTMLElementTagNameMap>(tag: K, className: string, text?: string): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function textOf(content: string | Block[]): string {
  if (typeof content === "string") return content;
  return content.map((block) => (block.type === "text" ? block.text : block.type === "image" ? "[image]" : "")).join("");
}

/** What a call is about at a glance when no title came with it: its path, command or pattern. */
function callSummary(name: string, args: Record<string, unknown>): string {
  const first = ["path", "file_path", "command", "pattern", "url", "query"].map((key) => args[key]).find((value) => typeof value === "string");
  return first ? `${name} ${first}` : name;
}

export class Transcript {
  /** The assistant message being streamed, its blocks by content index. */
  private live: { node: HTMLElement; blocks: Map<number, HTMLElement> } | undefined;
  private readonly tools = new Map<string, { node: HTMLElement; title: HTMLElement; result: HTMLElement }>();

  constructor(private readonly root: HTMLElement) {}

  reset(messages: unknown[]): void {
    this.root.replaceChildren();
    this.tools.clear();
    this.live = undefined;
    for (const message of messages) this.message(message as Message);
  }

  notice(text: string): void {
    this.append(element("div", "notice", text));
  }

  event(event: Event): void {
    switch (event.type) {
      case "message_start": {
        const message = event.message as Message;
        if (message.role === "assistant") this.startLive();
        else if (message.role === "user") this.message(message);
        return;
      }
      case "message_update":
        return this.delta(event.assistantMessageEvent as { type: string; contentIndex: number; delta?: string });
      case "message_end": {
        const message = event.message as Message;
        if (message.role === "assistant") {
          const live = this.live;
          this.live = undefined;
          const node = this.assistant(message);
          if (live) live.node.replaceWith(node);
          else this.append(node);
        } else if (message.role === "toolResult") this.message(message);
        return;
      }
      case "auto_retry_start":
        if (event.discarded) {
          this.live?.node.remove();
          this.live = undefined;
        }
        return;
      case "tool_call": {
        const presentation = event.presentation as { title?: string } | undefined;
        this.tool(String(event.toolCallId), String(event.toolName)).title.textContent = presentation?.title || String(event.toolName);
        return;
      }
      case "tool_execution_update":
        this.tool(String(event.toolCallId), String(event.toolName)).result.textContent = String(event.output ?? "").slice(-MAX_RESULT_CHARS);
        return;
      case "agent_end":
        if (event.error) this.notice(`The run ended: ${String(event.error)}`);
        return;
    }
  }

  private append(node: HTMLElement): void {
    const atBottom = scrollY + innerHeight >= document.body.scrollHeight - 40;
    this.root.append(node);
    if (atBottom) node.scrollIntoView({ block: "end" });
  }

  private message(message: Message): void {
    if (message.role === "user") {
      this.append(element("div", "user", textOf(message.content)));
    } else if (message.role === "assistant") {
      this.append(this.assistant(message));
    } else {
      const tool = this.tool(message.toolCallId, message.toolName);
      tool.node.classList.toggle("failed", message.isError);
      tool.node.classList.add("done");
      const text = textOf(message.content);
      tool.result.textContent = text.length > MAX_RESULT_CHARS ? `${text.slice(0, MAX_RESULT_CHARS)}\n… (${text.length - MAX_RESULT_CHARS} more characters)` : text;
    }
  }

  private assistant(message: Extract<Message, { role: "assistant" }>): HTMLElement {
    const node = element("div", "assistant");
    for (const block of message.content) {
      if (block.type === "text") node.append(element("div", "text", block.text));
      else if (block.type === "thinking") node.append(this.thinking(block.thinking));
      else if (block.type === "toolCall") {
        const tool = this.tool(block.id, block.name, false);
        if (tool.title.textContent === block.name) tool.title.textContent = callSummary(block.name, block.arguments);
        node.append(tool.node);
      }
    }
    if (message.errorMessage) node.append(element("div", "notice", message.errorMessage));
    return node;
  }

  private thinking(text: string): HTMLElement {
    const details = element("details", "thinking");
    details.append(element("summary", "", "thinking"), element("div", "text", text));
    return details;
  }

  /** The card of a tool call, made on first sight (its call, its title or its result, whichever comes first). */
  private tool(id: string, name: string, place = true) {
    let tool = this.tools.get(id);
    if (!tool) {
      const node = element("div", "tool");
      const title = element("div", "title", name);
      const result = element("pre", "result");
      node.append(title, result);
      tool = { node, title, result };
      this.tools.set(id, tool);
      if (place) (this.live?.node ?? this.root).append(node);
    }
    return tool;
  }

  private startLive(): void {
    const node = element("div", "assistant live");
    this.live = { node, blocks: new Map() };
    this.append(node);
  }

  private delta(delta: { type: string; contentIndex: number; delta?: string }): void {
    if (!this.live) this.startLive();
    const live = this.live!;
    if (delta.type === "text_start" || delta.type === "thinking_start") {
      const block = delta.type === "text_start" ? element("div", "text") : this.thinking("");
      live.blocks.set(delta.contentIndex, block);
      live.node.append(block);
      return;
    }
    if (delta.type !== "text_delta" && delta.type !== "thinking_delta") return;
    let block = live.blocks.get(delta.contentIndex);
    if (!block) {
      block = delta.type === "text_delta" ? element("div", "text") : this.thinking("");
      live.blocks.set(delta.contentIndex, block);
      live.node.append(block);
    }
    const target = block.tagName === "DETAILS" ? block.querySelector(".text")! : block;
    target.textContent += delta.delta ?? "";
    if (scrollY + innerHeight >= document.body.scrollHeight - 80) live.node.scrollIntoView({ block: "end" });
  }
}
