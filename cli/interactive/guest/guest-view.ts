import type { AgentEvent } from "../../../core/agent/events.ts";
import type { Message } from "../../../core/ai/messages.ts";
import { CollabGuest, type Welcome } from "../../../core/collab/guest.ts";
import type { CollabLink } from "../../../core/collab/link.ts";
import type { CollabState } from "../../../core/collab/messages.ts";
import { describeError } from "../../../core/errors/omp-error.ts";
import { displayPath } from "../../../core/paths.ts";
import { plural } from "../../../core/plural.ts";
import { renderChrome } from "../app/chrome.ts";
import { Overlays } from "../app/overlays.ts";
import { Completer } from "../commands/completion.ts";
import { type NoticeKind, SPINNER, type View, notice } from "../render/blocks.ts";
import { ConversationBlocks } from "../render/conversation-blocks.ts";
import type { Theme } from "../render/theme.ts";
import { Transcript } from "../render/transcript.ts";
import { Frames } from "../terminal/frames.ts";
import { type Action, type Keymap, keyLabel } from "../terminal/keybindings.ts";
import { type InputEvent, type Key, keyId } from "../terminal/keys.ts";
import { Screen } from "../terminal/screen.ts";
import type { Terminal } from "../terminal/terminal.ts";
import { PromptEditor } from "../widgets/prompt-editor.ts";
import { renderStatusLine } from "../widgets/status-line.ts";
import { sanitize } from "../../shared/terminal-text.ts";

/** What a guest may type besides prompts: the rest (/model, /compact, `!`) is the host's. */
const GUEST_COMMANDS = [
  { name: "help", description: "what a guest can do here" },
  { name: "leave", description: "leave the shared session" },
  { name: "exit", description: "leave the shared session" },
  { name: "quit", description: "leave the shared session" },
];
const DOUBLE_PRESS_MS = 1000;

/**
 * A guest of a collab room in omp's own TUI: the host's conversation drawn with the interactive
 * mode's blocks from the welcome, its live events streamed into them, the host's model and
 * context in the status line; the editor prompts the host's agent (full link) and Esc interrupts
 * it. `omp join` runs it on its own terminal; `/join` hands the interactive mode's terminal over.
 */
export class GuestView {
  private readonly view: View;
  private readonly screen: Screen;
  private readonly transcript = new Transcript();
  private readonly blocks: ConversationBlocks;
  private readonly editor: PromptEditor;
  private readonly overlays: Overlays;
  private readonly completer: Completer;
  private readonly frames: Frames;
  private readonly guest: CollabGuest;
  private state: CollabState | undefined;
  private sessionId: string | undefined;
  private running = false;
  private runStarted = 0;
  private connected = false;
  private ended = false;
  private lastCtrlC = 0;
  private hint: { text: string; until: number } | undefined;
  private finish: () => void = () => {};
  private readonly finished = new Promise<void>((resolve) => (this.finish = resolve));

  constructor(
    private readonly terminal: Terminal,
    theme: Theme,
    private readonly keymap: Keymap,
    link: CollabLink,
    name: string,
  ) {
    this.view = { theme, showThinking: false, expandTools: false, tick: 0 };
    this.screen = new Screen(terminal);
    this.blocks = new ConversationBlocks(this.view, (block) => {
      this.transcript.add(block);
      this.frames.request();
    });
    this.editor = new PromptEditor(theme, () => []);
    this.overlays = new Overlays(this.editor, () => this.frames.request());
    this.completer = new Completer(() => GUEST_COMMANDS, process.cwd(), () => this.frames.request());
    this.frames = new Frames(terminal, this.screen, this.transcript, (width, height) => this.chrome(width, height), () => {
      this.view.tick++;
      return this.running || !this.connected;
    });
    this.guest = new CollabGuest(link, name, {
      welcome: (welcome, again) => this.welcomed(welcome, again),
      event: (event) => this.hostEvent(event as AgentEvent),
      state: (state) => {
        this.state = state;
        // An agent_end lost while the relay was away does not leave the guest showing a run forever.
        if (!state.streaming) this.running = false;
        this.frames.request();
      },
      notice: (kind, text) => this.notice(kind, text),
      ended: (reason) => {
        this.notice("warning", reason === "revoked" ? "The host revoked this link: the room is closed. Ask the host for the new link." : "The host stopped sharing.");
        this.leave();
      },
    });
  }

  /** Until the guest leaves (/leave, Ctrl+C twice) or the host ends the room. */
  async run(): Promise<void> {
    const joining = this.guest.isViewOnly ? "Joining (view-only)" : "Joining";
    this.notice("info", `${joining} ${new URL(this.guest.link.relay).host} room ${this.guest.link.roomId.slice(0, 8)}…; waiting for the host.`);
    const stopResize = this.terminal.onResize(() => this.frames.resized());
    this.frames.render();
    this.frames.startTicker();
    await this.guest.start();
    await this.finished;
    stopResize();
    this.guest.close();
    this.frames.stop();
    this.screen.leave(this.transcript.flush(this.terminal.columns));
  }

  handleInput(event: InputEvent): void {
    if (this.ended) return;
    if (event.type === "paste") {
      this.editor.paste(event.text);
      this.completer.update(this.editor.buffer);
    } else if (event.type === "key") {
      this.handleKey(event.key);
    }
    this.frames.request();
  }

  private handleKey(key: Key): void {
    const id = keyId(key);
    const action = this.keymap.action(id);
    if (action === "app.thinking.toggle" || action === "app.tools.expand") {
      if (action === "app.thinking.toggle") this.view.showThinking = !this.view.showThinking;
      else this.view.expandTools = !this.view.expandTools;
      return this.frames.repaint();
    }
    if (action === "app.display.reset") return this.frames.repaint();
    if (this.completer.current) {
      const taken = this.completer.handleKey(id, this.editor.buffer);
      if (taken === "run") return this.submit();
      if (taken === "taken") return;
    }
    if (id === "ctrl+c") {
      if (this.running && !this.guest.isViewOnly) return this.interrupt();
      if (!this.editor.isEmpty) return this.editor.setText("");
      if (Date.now() - this.lastCtrlC < DOUBLE_PRESS_MS) return this.leave();
      this.lastCtrlC = Date.now();
      this.flash("Press Ctrl+C again to leave");
      return;
    }
    if (action === "app.interrupt") {
      if (this.running) this.interrupt();
      return;
    }
    const result = this.editor.handleKey(key);
    if (result === "submit") this.submit();
    else if (result !== "ignored") this.completer.update(this.editor.buffer);
  }

  private interrupt(): void {
    this.guest.abort().catch((error) => this.notice("warning", describeError(error)));
  }

  private submit(): void {
    const text = this.editor.text.trim();
    if (!text) return;
    this.completer.clear();
    const command = /^\/(\S+)/.exec(text)?.[1];
    if (command === "leave" || command === "exit" || command === "quit") {
      this.editor.take();
      return this.leave();
    }
    if (command === "help") {
      this.editor.take();
      const rights = this.guest.isViewOnly ? "This is a view-only link: you watch the host's session." : `Type a message to prompt the host's agent; ${this.keyOf("app.interrupt")} interrupts it.`;
      return this.notice("info", `${rights} ${this.keyOf("app.tools.expand")} expands tool output, ${this.keyOf("app.thinking.toggle")} shows thinking; /leave (or ctrl+c twice) leaves. Everything else (/model, /compact, !commands) is the host's.`);
    }
    if (text.startsWith("/") || text.startsWith("!")) {
      this.notice("warning", `${text.split(/\s/)[0]} is the host's: a guest prompts the agent and can /leave.`);
      return;
    }
    const taken = this.editor.take();
    this.guest.prompt(text).catch((error) => {
      this.notice("warning", describeError(error));
      this.editor.setText(taken);
    });
  }

  private welcomed(welcome: Welcome, again: boolean): void {
    this.connected = true;
    this.state = welcome.state;
    this.running = welcome.state.streaming;
    const sameSession = welcome.sessionId === this.sessionId;
    this.sessionId = welcome.sessionId;
    if (again && sameSession) {
      this.notice("info", "Back in the host's session.");
      return;
    }
    if (again) {
      this.notice("info", `The host switched to another session (${plural(welcome.messages.length, "message")}).`);
      this.safely(() => this.blocks.showMessages(welcome.messages as Message[]));
      return;
    }
    const rights = welcome.canWrite ? "you can prompt, esc interrupts" : "view-only: you can watch";
    this.notice("success", `Joined the session in ${displayPath(welcome.state.cwd)} (${plural(welcome.messages.length, "message")}; ${rights}; /leave to leave).`);
    this.safely(() => this.blocks.showMessages(welcome.messages as Message[]));
  }

  private hostEvent(event: AgentEvent): void {
    this.safely(() => this.blocks.apply(event));
    if (event.type === "agent_start") {
      this.running = true;
      this.runStarted = Date.now();
      this.frames.startTicker();
    } else if (event.type === "agent_end") {
      this.running = false;
      if (event.error) this.notice("error", event.error);
    }
    this.frames.request();
  }

  /** What the host sent is drawn as far as it makes sense; a malformed message is skipped, not fatal. */
  private safely(draw: () => void): void {
    try {
      draw();
    } catch (error) {
      this.notice("warning", `Skipped a message from the host that could not be drawn: ${describeError(error)}`);
    }
  }

  private notice(kind: NoticeKind, text: string): void {
    this.transcript.add(notice(this.view, kind, text));
    this.frames.request();
  }

  private flash(text: string): void {
    this.hint = { text, until: Date.now() + DOUBLE_PRESS_MS };
    setTimeout(() => this.frames.request(), DOUBLE_PRESS_MS + 10);
  }

  /** The key bound to an action as keybindings.yml has it (Ctrl+C interrupts and leaves whatever it says). */
  private keyOf(action: Action): string {
    const key = this.keymap.keysOf(action)[0];
    return key === undefined ? "ctrl+c" : keyLabel(key);
  }

  /** The host's state with its words made safe for this terminal (the host's text, not ours). */
  private shown(state: CollabState): CollabState {
    return { ...state, cwd: sanitize(state.cwd), model: { ...state.model, id: sanitize(state.model.id), thinking: sanitize(state.model.thinking) }, participants: state.participants.map((participant) => ({ ...participant, name: sanitize(participant.name) })) };
  }

  /** Ends the view: /leave, Ctrl+C twice, the host's bye, or a signal to omp join. */
  leave(): void {
    this.ended = true;
    this.finish();
  }

  private chrome(width: number, height: number) {
    const { theme } = this.view;
    const state = this.state && this.shown(this.state);
    const spinner = SPINNER[this.view.tick % SPINNER.length]!;
    let activity: string;
    if (this.hint && this.hint.until > Date.now()) activity = this.hint.text;
    else if (!state) activity = `${spinner} Waiting for the host…`;
    else if (this.running) activity = `${spinner} Host working${this.runStarted ? ` ${Math.floor((Date.now() - this.runStarted) / 1000)}s` : ""}${this.guest.isViewOnly ? "" : ` · ${this.keyOf("app.interrupt")} to interrupt`}`;
    else {
      const host = state.participants.find((participant) => participant.peer === 0);
      const guests = state.participants.filter((participant) => participant.peer !== 0).length;
      activity = `guest${this.guest.isViewOnly ? " (view-only)" : ""} of ${host?.name ?? "the host"} · ${plural(guests, "guest")} · ${displayPath(state.cwd)}`;
    }
    const statusLine = renderStatusLine(
      {
        activity,
        activityStyle: this.hint ? "warning" : this.running ? "accent" : "muted",
        model: state?.model.id ?? "—",
        ...(state?.model.thinking && state.model.thinking !== "off" ? { thinking: state.model.thinking } : {}),
        input: 0,
        output: 0,
        cost: state?.cost ?? 0,
        contextPercent: state && state.contextWindow > 0 ? Math.min(100, Math.round((state.contextTokens / state.contextWindow) * 100)) : 0,
      },
      width,
      theme,
    );
    return renderChrome({ queued: [], statusLine, overlays: this.overlays, editor: this.editor, completer: this.completer, theme }, width, height);
  }
}
