import type { Message } from "../ai/messages.ts";
import type { ToolSpec } from "../ai/stream.ts";
import type { Tool } from "../tools/types.ts";
import { FACTS_ENTRY, FRAME_ENTRY, type Facts, type RequestFrame, currentFacts, factsNote } from "./request-frame.ts";
import type { SessionRecorder } from "./session-recorder.ts";
import { toolSpec } from "./tool-specs.ts";

/**
 * An agent's request frame (see request-frame.ts): the system prompt and tools every request of
 * the session sends, fixed by its first request or by the resumed session, and the facts the
 * model was last told.
 */
export class SessionFrame {
  private frame: { systemPrompt: string; tools: ToolSpec[] } | undefined;
  /** What the model was last told about the date and the repository; undefined until the frame is stored. */
  private toldFacts: Facts | undefined;
  private specs: { tools: Tool[]; specs: ToolSpec[] } | undefined;

  constructor(
    private readonly session: SessionRecorder,
    /** Today's facts, as a new session's system prompt states them. */
    private readonly facts: Promise<Facts> | undefined,
    resumed: { frame: RequestFrame; facts: Facts } | undefined,
  ) {
    if (resumed) {
      this.frame = { systemPrompt: resumed.frame.systemPrompt, tools: resumed.frame.tools };
      this.toldFacts = resumed.facts;
    }
  }

  get stored(): boolean {
    return this.frame !== undefined;
  }

  /** The tool specs a request sends: the frame's once stored, else those of `tools`. */
  toolSpecs(tools: Tool[]): ToolSpec[] {
    if (this.frame) return this.frame.tools;
    if (this.specs?.tools !== tools) this.specs = { tools, specs: tools.map(toolSpec) };
    return this.specs.specs;
  }

  /** Once the frame is stored a changed tool list replaces its tools; true when it did. */
  replaceTools(tools: Tool[]): boolean {
    if (!this.frame) return false;
    const specs = tools.map(toolSpec);
    if (JSON.stringify(specs) === JSON.stringify(this.frame.tools)) return false;
    this.frame = { ...this.frame, tools: specs };
    const facts = this.toldFacts ?? currentFacts("");
    this.session.persist({ type: "custom", customType: FRAME_ENTRY, data: { systemPrompt: this.frame.systemPrompt, tools: specs, facts } satisfies RequestFrame });
    return true;
  }

  /**
   * The first request of a session fixes its system prompt and tools and stores them with the
   * facts they state, so that every later request, and a resume, sends the same prefix.
   */
  async store(systemPrompt: string, tools: ToolSpec[]): Promise<void> {
    const facts = (await this.facts) ?? currentFacts("");
    this.frame = { systemPrompt, tools };
    this.toldFacts = facts;
    this.session.persist({ type: "custom", customType: FRAME_ENTRY, data: { systemPrompt, tools, facts } satisfies RequestFrame }, undefined, true);
  }

  /**
   * A resumed session's first prompt, with a note of what changed since the model was last told
   * (a new day, commits, edited files): the stored system prompt still states the old facts.
   */
  async withFactsUpdate(message: Message): Promise<Message> {
    if (!this.toldFacts || !this.facts || message.role !== "user") return message;
    const now = await this.facts;
    const note = factsNote(this.toldFacts, now);
    this.toldFacts = now;
    if (!note) return message;
    this.session.persist({ type: "custom", customType: FACTS_ENTRY, data: now });
    const content = typeof message.content === "string" ? [{ type: "text" as const, text: message.content }] : message.content;
    return { ...message, content: [{ type: "text", text: note }, ...content] };
  }
}
