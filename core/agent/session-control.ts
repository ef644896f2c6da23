import { existsSync } from "node:fs";
import type { Message } from "../ai/messages.ts";
import { textOf } from "../ai/transcript.ts";
import { addUsage } from "../ai/usage.ts";
import { THINKING_LEVELS, type ThinkingLevel } from "../ai/model.ts";
import { SESSION_NAME_ENTRY } from "../session/name-entry.ts";
import type { LoadedSession } from "../session/loader.ts";
import type { Agent } from "./agent.ts";
import type { ModelSelection, Runtime } from "./runtime.ts";

/**
 * Switching model, thinking level and session, written once for every mode: the interactive
 * mode's /model, /thinking, Shift+Tab, /new and /resume, and rpc's set_model, cycle_model,
 * set_thinking_level, new_session and switch_session all go through here, so they cannot drift.
 */
export class SessionControl {
  private readonly listeners = new Set<(agent: Agent) => void>();

  constructor(
    private readonly runtime: Runtime,
    public agent: Agent,
    public selection: ModelSelection,
  ) {}

  /** Called with the new agent after every session switch (the old one is closed by then). */
  onSwitch(listener: (agent: Agent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * The model of `selection`, with the thinking level it implies: the level the pattern asked
   * for (`opus:high`), else off for a model that cannot think, else the setting when coming
   * back from a model that could not.
   */
  setModel(selection: ModelSelection): void {
    const agent = this.agent;
    agent.setModel(selection.model, selection.apiKey);
    if (selection.thinking) agent.setThinking(selection.model.reasoning ? selection.thinking : "off");
    else if (!selection.model.reasoning && agent.thinking !== "off") agent.setThinking("off");
    else if (selection.model.reasoning && agent.thinking === "off") agent.setThinking(this.runtime.options.settings.thinking);
    this.selection = selection;
  }

  /** A thinking level; false when the model has none. */
  setThinking(level: ThinkingLevel): boolean {
    if (!this.agent.model.reasoning) return false;
    this.agent.setThinking(level);
    return true;
  }

  /** The next thinking level; undefined when the model has none. */
  cycleThinking(): ThinkingLevel | undefined {
    if (!this.agent.model.reasoning) return undefined;
    const next = THINKING_LEVELS[(THINKING_LEVELS.indexOf(this.agent.thinking) + 1) % THINKING_LEVELS.length]!;
    this.agent.setThinking(next);
    return next;
  }

  /**
   * The next model of `models` (the `enabledModels` setting's list when set, else every model
   * with a key), in order, wrapping; undefined when there is no other.
   */
  async cycleModel(direction: 1 | -1 = 1): Promise<ModelSelection | undefined> {
    const candidates = await this.runtime.cycleCandidates();
    if (candidates.length === 0) return undefined;
    const current = candidates.findIndex((m) => m.provider === this.agent.model.provider && m.id === this.agent.model.id);
    for (let step = 1; step <= candidates.length; step++) {
      const next = candidates[(((current + direction * step) % candidates.length) + candidates.length) % candidates.length]!;
      if (next.provider === this.agent.model.provider && next.id === this.agent.model.id) continue;
      try {
        const selection = await this.runtime.selectModel(`${next.provider}/${next.id}`, false);
        this.setModel(selection);
        return selection;
      } catch {
        // No key for this one after all: try the next.
      }
    }
    return undefined;
  }

  /**
   * Goes back to before one of the user's messages, as the original's branch does: the
   * conversation is what it was just before `entryId` (a user message), the next message starts
   * a new branch of the session tree there, and the message's text comes back so a host can put
   * it in its editor to change and resend.
   */
  async branch(entryId: string): Promise<{ agent: Agent; text: string }> {
    const loaded = await this.currentFile("branch from");
    const entry = loaded.entries.find((e) => e.id === entryId);
    if (entry?.type !== "message" || entry.message.role !== "user") throw new Error(`Invalid entry ID for branching: ${entryId} is not a user message of this session`);
    const agent = await this.moveLeaf(loaded.path, loaded.parents.get(entryId) ?? null);
    return { agent, text: textOf(entry.message.content) };
  }

  /**
   * Moves the session to any entry of its tree, on this branch or another (/tree, rpc navigate),
   * as the original's tree navigation does: to a user message means to just before it, with its
   * text back for the editor (as {@link branch}); to any other entry means to just after it. The
   * next message continues from there; nothing is rewritten.
   */
  async navigate(entryId: string): Promise<{ agent: Agent; leafId: string | null; text?: string }> {
    const loaded = await this.currentFile("navigate");
    const entry = loaded.entries.find((e) => e.id === entryId);
    if (!entry) throw new Error(`no entry ${entryId} in this session; get_tree lists them`);
    if (entry.type === "message" && entry.message.role === "user") {
      const leafId = loaded.parents.get(entryId) ?? null;
      return { agent: await this.moveLeaf(loaded.path, leafId), leafId, text: textOf(entry.message.content) };
    }
    return { agent: await this.moveLeaf(loaded.path, entryId), leafId: entryId };
  }

  /** The session file as it is now (written through first), for the tree and the moves in it. */
  async currentFile(doing = "show"): Promise<LoadedSession> {
    if (this.agent.isRunning) throw new Error("abort the running turn first");
    const writer = this.agent.writer;
    if (!writer) throw new Error(`this session is not saved (--no-session), so there is no tree to ${doing}`);
    if (!existsSync(writer.path)) throw new Error(`this session has no entries yet to ${doing}`);
    writer.sync();
    const { loadSession } = await import("../session/loader.ts");
    return loadSession(writer.path);
  }

  /** A label on an entry of the session (shown by /tree and get_tree); empty clears it. */
  async label(targetId: string, label: string): Promise<void> {
    const loaded = await this.currentFile("label");
    if (!loaded.parents.has(targetId)) throw new Error(`no entry ${targetId} in this session`);
    const trimmed = label.trim();
    this.agent.writer!.append({ type: "label", targetId, ...(trimmed ? { label: trimmed } : {}) });
  }

  /**
   * Copies the path to the current leaf into a new session file (its header's parentSession names
   * this one) and continues there; this file stays as it was, to be resumed on its own.
   */
  async fork(): Promise<{ agent: Agent; path: string }> {
    const loaded = await this.currentFile("fork");
    const { forkSession } = await import("../session/fork.ts");
    const path = forkSession(loaded, { ...this.sessionDirOptions(), leafId: this.agent.writer!.leafId });
    const { agent } = await this.switchSession(path);
    return { agent, path };
  }

  /**
   * `/handoff [goal]`: the model writes a brief of this session (handoff.ts), and a new session
   * linked to this one starts with it as its first message.
   */
  async handoff(goal?: string, signal?: AbortSignal): Promise<{ agent: Agent; brief: string; path: string }> {
    const loaded = await this.currentFile("hand off");
    const { handoffMessage, writeHandoff } = await import("./handoff.ts");
    const brief = await writeHandoff(this.agent, goal, signal);
    const { seedSession } = await import("../session/fork.ts");
    const title = goal?.trim() ? `Handoff: ${goal.trim()}` : `Handoff from ${loaded.header.id.slice(0, 8)}`;
    const path = seedSession(loaded.path, [{ type: "message", message: handoffMessage(this.agent.redact(brief), loaded.header.id) }], { ...this.sessionDirOptions(), title });
    const { agent } = await this.switchSession(path);
    return { agent, brief, path };
  }

  /** Where this project's session files go (the sessionDir setting or --session-dir, else the default). */
  sessionDirOptions(): { cwd: string } & ReturnType<Runtime["sessionDirOptions"]> {
    return { cwd: this.runtime.options.cwd, ...this.runtime.sessionDirOptions() };
  }

  /** The same file from another leaf: a new agent with that branch's context, whose next entry hangs below `leafId`. */
  private async moveLeaf(path: string, leafId: string | null): Promise<Agent> {
    // Closed first, so the new writer takes the file's lock instead of sharing this one's, which
    // closing afterwards would release from under it.
    this.agent.writer?.close();
    const next = await this.runtime.createAgent(this.selection, path, leafId);
    // The session's cost so far was spent whichever branch it goes on from: the status line keeps it.
    next.usage = addUsage(this.agent.usage);
    this.agent = next;
    for (const listener of this.listeners) listener(next);
    return next;
  }

  /** The whole conversation of the current branch, compacted turns included (for exports). */
  async conversation(): Promise<Message[]> {
    const writer = this.agent.writer;
    if (!writer || !existsSync(writer.path)) return this.agent.messages;
    const { conversationMessages, loadSession } = await import("../session/loader.ts");
    return conversationMessages(loadSession(writer.path), writer.leafId);
  }

  /** A name for the session, shown by listings and pickers instead of its first message. */
  setSessionName(name: string): void {
    const trimmed = name.trim();
    if (trimmed === "") throw new Error("Session name cannot be empty");
    if (!this.agent.writer) throw new Error("this session is not saved (--no-session), so it cannot be named");
    this.agent.writer.append({ type: "custom", customType: SESSION_NAME_ENTRY, data: { name: trimmed } });
    this.agent.userNamed = true;
  }

  /**
   * A new session (no path) or the one at `resumePath`, which comes back on the model and
   * thinking level it last used when that model is still available (else the current one, and
   * `warning` says so). The old session is closed only once the new one is ready.
   */
  async switchSession(resumePath?: string): Promise<{ agent: Agent; warning?: string }> {
    if (this.agent.isRunning) throw new Error("abort the running turn first");
    let selection = this.selection;
    let warning: string | undefined;
    if (resumePath) {
      const restored = await this.runtime.sessionSelection(resumePath);
      if (restored.selection) selection = restored.selection;
      warning = restored.warning;
    }
    const next = await this.runtime.createAgent(selection, resumePath);
    // SessionEnd hooks of the session being left, before its file is closed.
    await this.agent.end("clear");
    this.agent.writer?.close();
    this.agent = next;
    this.selection = selection;
    for (const listener of this.listeners) listener(next);
    return warning === undefined ? { agent: next } : { agent: next, warning };
  }
}
