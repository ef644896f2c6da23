import type { Agent } from "../../../core/agent/agent.ts";
import type { ImageContent, TextContent } from "../../../core/ai/messages.ts";
import { paint, truncateText } from "../render/text.ts";
import { sanitize } from "../../shared/terminal-text.ts";
import type { Theme } from "../render/theme.ts";

export interface QueuedMessage {
  kind: "steer" | "followUp";
  /** As typed, for the editor when an interrupt gives it back. */
  text: string;
  content: (TextContent | ImageContent)[];
}

/**
 * Messages typed while the agent works. They stay here, not in the agent's queues, until the
 * agent is about to take one (at a turn's end), so an interrupt can give them back.
 */
export class MessageQueue {
  private queued: QueuedMessage[] = [];

  get length(): number {
    return this.queued.length;
  }

  push(message: QueuedMessage): void {
    this.queued.push(message);
  }

  shift(): QueuedMessage | undefined {
    return this.queued.shift();
  }

  /** Empties the queue; returns what was typed, oldest first. */
  takeTexts(): string[] {
    const texts = this.queued.map((q) => q.text);
    this.queued = [];
    return texts;
  }

  /** Gives the agent the next queued message it is about to take: a steer, or a follow-up once it has nothing left to do. */
  handOver(agent: Agent, moreTools: boolean): void {
    const steer = this.queued.findIndex((q) => q.kind === "steer");
    if (steer !== -1) {
      agent.steer(this.queued.splice(steer, 1)[0]!.content);
      return;
    }
    if (!moreTools && this.queued.length > 0) agent.followUp(this.queued.shift()!.content);
  }

  /** The rows above the status line: the first few queued messages. */
  render(width: number, theme: Theme): string[] {
    const rows: string[] = [];
    for (const q of this.queued.slice(0, 3)) {
      const label = q.kind === "steer" ? "steer" : "follow-up";
      rows.push(paint(truncateText(`  ↳ queued ${label}: ${sanitize(q.text.split("\n")[0]!)}`, width), theme.fg("muted")));
    }
    if (this.queued.length > 3) rows.push(paint(`  … ${this.queued.length - 3} more queued`, theme.fg("dim")));
    return rows;
  }
}
