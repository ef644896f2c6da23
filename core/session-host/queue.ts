import type { Agent } from "../agent/agent.ts";
import type { ImageContent, TextContent } from "../ai/messages.ts";

export type QueueKind = "steer" | "followUp";

export interface QueuedMessage {
  kind: QueueKind;
  /** As the user wrote it, for a front end that gives it back after an interrupt. */
  text: string;
  content: (TextContent | ImageContent)[];
}

/**
 * Messages sent while the agent works, for every front end. They stay here, not in the agent's
 * queues, until the agent is about to take one (at a turn's end), so an interrupt can give them
 * back; the session's queue modes (steeringMode, followUpMode: one-at-a-time or all) say how many
 * go at once.
 */
export class MessageQueue {
  private queued: QueuedMessage[] = [];

  get length(): number {
    return this.queued.length;
  }

  get messages(): readonly QueuedMessage[] {
    return this.queued;
  }

  push(message: QueuedMessage): void {
    this.queued.push(message);
  }

  shift(): QueuedMessage | undefined {
    return this.queued.shift();
  }

  /** Empties the queue; returns what was queued, oldest first. */
  take(): QueuedMessage[] {
    return this.queued.splice(0);
  }

  /** Gives the agent what it is about to take: steering, or follow-ups once it has nothing left to do. */
  handOver(agent: Agent, moreTools: boolean): void {
    const steering = this.queued.filter((q) => q.kind === "steer");
    if (steering.length > 0) {
      for (const message of agent.steeringMode === "all" ? steering : steering.slice(0, 1)) {
        this.queued.splice(this.queued.indexOf(message), 1);
        agent.steer(message.content);
      }
      return;
    }
    if (moreTools || this.queued.length === 0) return;
    for (const message of agent.followUpMode === "all" ? this.queued.splice(0) : this.queued.splice(0, 1)) agent.followUp(message.content);
  }
}
