import type { Agent } from "../../core/agent/agent.ts";
import type { AgentEvent } from "../../core/agent/events.ts";
import { expandMentions } from "../../core/agent/mentions.ts";
import type { ModelSelection, Runtime } from "../../core/agent/runtime.ts";
import { SessionControl } from "../../core/agent/session-control.ts";
import type { ImageContent, Message, TextContent, UserMessage } from "../../core/ai/messages.ts";
import { describeError } from "../../core/errors/omp-error.ts";
import type { HistoryStore } from "../../core/history/store.ts";
import { displayPath } from "../../core/paths.ts";
import { COMPACTION_SUMMARY_PREFIX } from "../../core/session/compaction-summary.ts";
import type { ApprovalDecision, ApprovalRequest } from "../../core/tools/approval.ts";
import { VERSION } from "../../core/version.ts";
import { signalStatus } from "../modes/print.ts";
import { ApprovalPrompt } from "./approval-prompt.ts";
import { AssistantBlock, NoticeBlock, type NoticeKind, SPINNER, UserBlock, type View, notice } from "./blocks.ts";
import { COMMANDS, type CommandHost, findCommand, suggestCommand } from "./commands.ts";
import { mcpCommandInfos, mcpPromptCommand, mcpStatusText, watchMcpStatus } from "./mcp-commands.ts";
import { extensionCommandInfos } from "./extension-commands.ts";
import { findInvocable } from "../../core/extensions/expand.ts";
import { prepareInvocation } from "../../core/extensions/invoke.ts";
import { Completer } from "./completion.ts";
import { HistorySearch } from "./history-search.ts";
import { type InputEvent, type Key, keyId } from "./keys.ts";
import { PromptEditor } from "./prompt-editor.ts";
import { Screen } from "./screen.ts";
import { type Choice, SelectList } from "./select-list.ts";
import { ShellRunner } from "./shell.ts";
import { formatElapsed, renderStatusLine } from "./status-line.ts";
import type { Terminal } from "./terminal.ts";
import { fitSpans, paint, sanitize, spansToString, truncateText } from "./text.ts";
import type { Theme } from "./theme.ts";
import { ToolBlock } from "./tool-block.ts";
import { type Block, Transcript } from "./transcript.ts";
import { Keymap, keyLabel } from "./keybindings.ts";

/** Frames are at most this often; keystrokes after a quiet spell draw at once. */
const FRAME_MS = 16;
const TICK_MS = 80;
/** A second Ctrl+C within this long quits. */
const DOUBLE_PRESS_MS = 1000;
/** A resumed session shows this many of its last messages. */
const REPLAY_MESSAGES = 60;
const EMPTY_HINT = "Ask anything · / commands · @ files · ! shell";

export interface AppOptions {
  runtime: Runtime;
  selection: ModelSelection;
  agent: Agent;
  resumePath?: string;
  env: Record<string, string | undefined>;
  onFirstFrame?: () => void;
  /** The keys of the remappable actions (keybindings.yml); the defaults when absent. */
  keymap?: Keymap;
  /** What was wrong with keybindings.yml, shown once the session is up. */
  keymapWarning?: string;
  /** Shown once the session is up: what an untrusted folder was not allowed to change. */
  trustNotice?: string;
}

type Overlay =
  | { kind: "picker"; list: SelectList<unknown>; resolve: (value: unknown) => void }
  | { kind: "approval"; prompt: ApprovalPrompt }
  | { kind: "search"; search: HistorySearch; draft: string };

interface PendingApproval {
  request: ApprovalRequest;
  resolve: (decision: ApprovalDecision) => void;
}

/**
 * The interactive session: owns the transcript, the editor and the overlays, turns agent events
 * into blocks and keys into actions, and draws a frame whenever something changed.
 */
export class InteractiveApp implements CommandHost {
  readonly view: View;
  readonly keymap: Keymap;
  readonly runtime: Runtime;
  readonly cwd: string;
  private readonly control: SessionControl;

  private readonly screen: Screen;
  private readonly transcript = new Transcript();
  private readonly editor: PromptEditor;
  private readonly completer: Completer;
  private readonly shell: ShellRunner;
  private overlay: Overlay | undefined;
  private readonly approvals: PendingApproval[] = [];
  private unsubscribe: () => void = () => {};
  private current: AssistantBlock | undefined;
  private readonly tools = new Map<string, ToolBlock>();
  /**
   * Messages typed while the agent works. They stay here, not in the agent's queues, until the
   * agent is about to take one (at a turn's end), so an interrupt can give them back.
   */
  private queued: { kind: "steer" | "followUp"; text: string; content: (TextContent | ImageContent)[] }[] = [];
  private interrupted = false;
  private runStarted = 0;
  private busy: string | undefined;
  /** A command's transient activity ("Looking for models"). */
  private activity: string | undefined;
  private retrying: string | undefined;
  private lastError: string | undefined;
  private hint: { text: string; until: number } | undefined;
  private lastCtrlC = 0;
  private ticker: ReturnType<typeof setInterval> | undefined;
  private renderTimer: ReturnType<typeof setTimeout> | undefined;
  private resizeTimer: ReturnType<typeof setTimeout> | undefined;
  private lastRender = 0;
  private inputFrame = false;
  private history: HistoryStore | null | undefined;
  private stopped = false;
  private finish: () => void = () => {};
  private readonly finished = new Promise<void>((resolve) => (this.finish = resolve));

  constructor(
    private readonly terminal: Terminal,
    theme: Theme,
    private readonly options: AppOptions,
  ) {
    this.view = { theme, showThinking: false, expandTools: false, tick: 0 };
    this.keymap = options.keymap ?? Keymap.defaults();
    this.runtime = options.runtime;
    this.cwd = options.runtime.options.cwd;
    this.screen = new Screen(terminal);
    this.editor = new PromptEditor(theme, () => this.historyStore()?.recent(500) ?? []);
    this.completer = new Completer(() => [...COMMANDS, ...extensionCommandInfos(this.runtime.extensions, COMMANDS), ...mcpCommandInfos(this.runtime)], this.cwd, () => this.requestRender());
    this.shell = new ShellRunner(this.view, this.cwd, () => this.requestRender());
    this.control = new SessionControl(options.runtime, options.agent, options.selection);
    watchMcpStatus(this.runtime, () => this.requestRender());
  }

  get agent(): Agent {
    return this.control.agent;
  }

  get selection(): ModelSelection {
    return this.control.selection;
  }

  /** Runs until the user leaves; resolves with the exit status. */
  async run(initialPrompt: string | undefined, pending: InputEvent[]): Promise<number> {
    this.attach(this.agent);
    this.add(this.welcome());
    if (this.options.keymapWarning) this.notice("warning", this.options.keymapWarning);
    for (const warning of [...(this.selection.warning ? [this.selection.warning] : []), ...this.agent.warnings]) this.notice("warning", warning);
    if (this.options.trustNotice) this.notice("warning", this.options.trustNotice);
    this.runtime.extensions.catalog.setReporter((problem) => this.notice("warning", problem));
    if (this.options.resumePath) this.showConversation(this.agent.messages, displayPath(this.options.resumePath));
    const stopResize = this.terminal.onResize(() => this.onResize());
    let signalled: NodeJS.Signals | undefined;
    const onSignal = (signal: NodeJS.Signals) => {
      signalled = signal;
      this.exit();
    };
    process.on("SIGTERM", onSignal);
    process.on("SIGHUP", onSignal);
    this.render();
    this.options.onFirstFrame?.();
    this.checkForUpdate();
    for (const event of pending) this.handleInput(event);
    if (initialPrompt) {
      this.editor.setText(initialPrompt);
      this.submit("steer");
    }
    await this.finished;
    stopResize();
    process.off("SIGTERM", onSignal);
    process.off("SIGHUP", onSignal);
    await this.shutdown();
    return signalled ? signalStatus(signalled) : 0;
  }

  /** The daily update check runs in the background once the prompt is up; its notice joins the transcript. */
  private checkForUpdate(): void {
    const { update } = this.runtime.options.settings;
    const env = this.options.env as NodeJS.ProcessEnv;
    void import("../../core/update/background-check.ts")
      .then(({ startUpdateCheck, updateCheckEnabled }) => {
        if (!updateCheckEnabled(update.checkForUpdates, env)) return;
        return startUpdateCheck({ channel: update.channel, env, onNotice: (text) => this.notice("info", text) });
      })
      .catch(() => {
        // An update check that cannot run is not worth interrupting anyone for.
      });
  }

  // ---- agent events

  private attach(agent: Agent): void {
    this.unsubscribe();
    this.unsubscribe = agent.subscribe((event) => this.onAgentEvent(event));
  }

  private onAgentEvent(event: AgentEvent): void {
    switch (event.type) {
      case "agent_start":
        this.runStarted = Date.now();
        this.lastError = undefined;
        this.interrupted = false;
        this.startTicker();
        break;
      case "turn_end":
        // The agent takes steering (and, after a final reply, follow-ups) right after this event.
        if (!this.interrupted) this.handOver(event.message.content.some((part) => part.type === "toolCall"));
        break;
      case "message_start": {
        const message = event.message;
        if (message.role === "assistant") {
          this.current = new AssistantBlock(this.view);
          this.add(this.current);
          this.retrying = undefined;
        } else if (message.role === "user") {
          this.showUserMessage(message);
        }
        break;
      }
      case "message_update": {
        const delta = event.assistantMessageEvent;
        if (delta.type === "toolcall_end") this.toolBlock(delta.toolCall.id, delta.toolCall.name).called(delta.toolCall.name, delta.toolCall.arguments);
        else this.current?.apply(delta);
        break;
      }
      case "message_end": {
        const message = event.message;
        if (message.role === "assistant") {
          this.current?.finish(message);
          this.current = undefined;
          for (const part of message.content) {
            if (part.type === "toolCall") this.toolBlock(part.id, part.name).called(part.name, part.arguments);
          }
          if (message.stopReason === "error") this.lastError = message.errorMessage;
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
      case "auto_retry_start":
        // The reply shown so far was dropped; the retry's reply gets a block of its own.
        if (event.discarded) this.current = undefined;
        this.retrying = `Retrying in ${(event.delayMs / 1000).toFixed(1)}s (attempt ${event.attempt}): ${event.reason}`;
        break;
      case "auto_compaction_start":
        this.busy = "Compacting the conversation";
        this.startTicker();
        break;
      case "auto_compaction_end":
        this.busy = undefined;
        if (event.error) this.notice("error", `Compaction failed: ${event.error}`);
        else this.notice("success", `Compacted ${event.tokensBefore ?? 0} tokens of older messages into a summary.`);
        break;
      case "agent_end":
        this.cancelTools();
        this.runStarted = 0;
        this.retrying = undefined;
        if (this.interrupted) this.restoreQueued();
        else if (this.queued.length > 0) void this.agent.idle().then(() => this.sendQueued());
        if (event.error && event.error !== this.lastError) this.notice(event.stopReason === "hook" ? "warning" : "error", event.error);
        break;
    }
    this.requestRender();
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
    const parts = typeof message.content === "string" ? [{ type: "text" as const, text: message.content }] : message.content;
    const first = parts[0];
    const text = first?.type === "text" ? first.text : "";
    if (text.startsWith(COMPACTION_SUMMARY_PREFIX)) {
      this.add(notice(this.view, "info", "The earlier conversation was compacted into a summary."));
      return;
    }
    const extras = parts.length - (first?.type === "text" ? 1 : 0);
    this.add(new UserBlock(this.view, text, extras > 0 ? `+${extras} attached` : undefined));
  }

  /** Gives the agent the next queued message it is about to take: a steer, or a follow-up once it has nothing left to do. */
  private handOver(moreTools: boolean): void {
    const steer = this.queued.findIndex((q) => q.kind === "steer");
    if (steer !== -1) {
      this.agent.steer(this.queued.splice(steer, 1)[0]!.content);
      return;
    }
    if (!moreTools && this.queued.length > 0) this.agent.followUp(this.queued.shift()!.content);
  }

  /** Typed just as the agent finished: the first queued message starts the next run. */
  private sendQueued(): void {
    const next = this.queued.shift();
    if (!next || this.agent.isRunning || this.stopped) return;
    this.agent.prompt(next.content).catch((error) => this.notice("error", describeError(error)));
  }

  /** After an interrupt, queued messages go back to the editor instead of to the model. */
  private restoreQueued(): void {
    if (this.queued.length === 0) return;
    const texts = this.queued.map((q) => q.text);
    this.queued = [];
    const draft = this.editor.text;
    this.editor.setText([...texts, ...(draft ? [draft] : [])].join("\n\n"));
    this.completer.clear();
  }

  /** A resumed conversation, drawn as if it had just happened (its last messages). */
  private showConversation(messages: readonly Message[], from: string): void {
    const shown = messages.slice(-REPLAY_MESSAGES);
    this.add(notice(this.view, "info", `Resumed ${from} (${messages.length} messages)${shown.length < messages.length ? `; showing the last ${shown.length}` : ""}.`));
    for (const message of shown) {
      if (message.role === "user") this.showUserMessage(message);
      else if (message.role === "assistant") {
        const block = new AssistantBlock(this.view);
        block.finish(message);
        this.add(block);
        for (const part of message.content) if (part.type === "toolCall") this.toolBlock(part.id, part.name).called(part.name, part.arguments);
      } else this.tools.get(message.toolCallId)?.finished(message);
    }
    this.cancelTools();
  }

  private welcome(): Block {
    const model = this.agent.model;
    return new NoticeBlock(
      this.view,
      (width, theme) => [
        spansToString(
          fitSpans(
            [
              { text: "omp ", style: theme.fg("accent", "bold") },
              { text: `${VERSION}  `, style: theme.fg("dim") },
              { text: `${model.provider}/${model.id}  `, style: theme.fg("accent") },
              { text: displayPath(this.cwd), style: theme.fg("muted") },
            ],
            width,
          ),
        ),
        paint(truncateText(`/help for commands · ${this.interruptKey()} interrupts · ctrl+c twice quits`, width), theme.fg("dim")),
      ],
      false,
    );
  }

  // ---- CommandHost

  add(block: Block): void {
    this.transcript.add(block);
    this.requestRender();
  }

  notice(kind: NoticeKind, text: string): void {
    this.add(notice(this.view, kind, text));
  }

  setActivity(text: string | undefined): void {
    this.activity = text;
    if (text) this.startTicker();
    this.requestRender();
  }

  pick<T>(title: string, choices: Choice<T>[], filterable = true): Promise<T | undefined> {
    return new Promise((resolve) => {
      this.closeOverlay();
      this.overlay = { kind: "picker", list: new SelectList(title, choices, filterable) as SelectList<unknown>, resolve: resolve as (value: unknown) => void };
      this.requestRender();
    });
  }

  setModel(selection: ModelSelection): void {
    this.control.setModel(selection);
  }

  conversation(): Promise<Message[]> {
    return this.control.conversation();
  }

  async switchSession(resumePath?: string): Promise<void> {
    let switched: { agent: Agent; warning?: string };
    try {
      switched = await this.control.switchSession(resumePath);
    } catch (error) {
      this.notice("error", describeError(error));
      return;
    }
    const { agent } = switched;
    this.attach(agent);
    for (const warning of [...(switched.warning ? [switched.warning] : []), ...agent.warnings]) this.notice("warning", warning);
    this.queued = [];
    this.shell.clearContext();
    if (resumePath) this.showConversation(agent.messages, displayPath(resumePath));
    else this.notice("info", "New session.");
  }

  async compact(instructions?: string): Promise<void> {
    this.busy = "Compacting the conversation";
    this.startTicker();
    this.requestRender();
    try {
      if (!(await this.agent.compact("manual", instructions))) this.notice("info", "Nothing to compact yet: the conversation is still short.");
    } finally {
      this.busy = undefined;
      this.requestRender();
    }
  }

  copyToClipboard(text: string): void {
    // OSC 52: the terminal (or tmux with set-clipboard) puts it on the system clipboard, also over SSH.
    this.terminal.write(`\x1b]52;c;${Buffer.from(text).toString("base64")}\x07`);
  }

  exit(): void {
    this.finish();
  }

  /** The runtime's approver forwards here: one prompt at a time, in the order the calls asked. */
  approve(request: ApprovalRequest): Promise<ApprovalDecision> {
    if (this.stopped) return Promise.resolve({ allow: false, reason: "omp is exiting" });
    return new Promise((resolve) => {
      this.approvals.push({ request, resolve });
      this.showNextApproval();
      this.requestRender();
    });
  }

  private showNextApproval(): void {
    if (this.overlay?.kind === "approval") return;
    const next = this.approvals.shift();
    if (!next) return;
    this.closeOverlay();
    this.overlay = {
      kind: "approval",
      prompt: new ApprovalPrompt(next.request, (decision) => {
        next.resolve(decision);
        this.overlay = undefined;
        this.showNextApproval();
        this.requestRender();
      }),
    };
  }

  private closeOverlay(): void {
    const overlay = this.overlay;
    this.overlay = undefined;
    if (overlay?.kind === "picker") overlay.resolve(undefined);
    if (overlay?.kind === "search") this.editor.setText(overlay.draft);
  }

  // ---- input

  handleInput(event: InputEvent): void {
    if (this.stopped) return;
    if (event.type === "paste") {
      if (this.overlay?.kind === "approval") this.overlay.prompt.paste(event.text);
      else if (!this.overlay) {
        this.editor.paste(event.text);
        this.completer.update(this.editor.buffer);
      }
    } else if (event.type === "key") {
      this.handleKey(event.key);
    }
    // What the user typed is drawn now, not at the next streaming frame; once per burst of input.
    if (!this.inputFrame) {
      this.inputFrame = true;
      queueMicrotask(() => {
        this.inputFrame = false;
        this.renderNow();
      });
    }
  }

  private handleKey(key: Key): void {
    const id = keyId(key);
    const action = this.keymap.action(id);
    // These work everywhere, over lists and prompts too.
    switch (action) {
      case "app.display.reset":
        return this.repaint();
      case "app.suspend":
        return this.suspend();
      case "app.thinking.toggle":
        this.view.showThinking = !this.view.showThinking;
        return this.repaint();
      case "app.tools.expand":
        this.view.expandTools = !this.view.expandTools;
        return this.repaint();
    }
    if (this.overlay) return this.overlayKey(key, id);
    if (this.completer.current && this.completionKey(id)) return;

    if (id === "ctrl+c") {
      if (this.agent.isRunning || this.shell.running) return this.interrupt();
      if (!this.editor.isEmpty) {
        this.editor.setText("");
        this.completer.clear();
        return;
      }
      if (Date.now() - this.lastCtrlC < DOUBLE_PRESS_MS) return this.exit();
      this.lastCtrlC = Date.now();
      this.flash("Press Ctrl+C again to exit");
      return;
    }
    switch (action) {
      case "app.interrupt":
        if (this.agent.isRunning) this.interrupt();
        else if (this.shell.running) this.shell.stop();
        return;
      case "app.exit":
        if (this.editor.isEmpty) return this.exit();
        break;
      case "app.history.search":
        this.overlay = { kind: "search", search: new HistorySearch((query) => this.historyStore()?.search(query, 200) ?? []), draft: this.editor.text };
        return;
      case "app.message.followUp":
        if (this.agent.isRunning) return this.submit("followUp");
        this.editor.buffer.insert("\n");
        return;
      case "app.thinking.cycle":
        return this.cycleThinking();
    }
    const result = this.editor.handleKey(key);
    if (result === "submit") this.submit("steer");
    else if (result !== "ignored") this.completer.update(this.editor.buffer);
  }

  /** The interrupt key as the tips name it; Ctrl+C interrupts whatever keybindings.yml says. */
  private interruptKey(): string {
    const key = this.keymap.keysOf("app.interrupt")[0];
    return key === undefined ? "ctrl+c" : keyLabel(key);
  }

  private cycleThinking(): void {
    const model = this.agent.model;
    const next = this.control.cycleThinking();
    if (!next) return this.flash(`${model.provider}/${model.id} has no thinking levels`);
    this.flash(`Thinking: ${next}`);
  }

  /**
   * Ctrl+Z: the live rows (status, editor) give way to the shell; after `fg` they are drawn again
   * below what the shell printed. The scrollback keeps the transcript as it was.
   */
  private suspend(): void {
    this.screen.leave([]);
    this.terminal.suspend();
    this.render();
  }

  private interrupt(): void {
    if (this.shell.running) this.shell.stop();
    if (this.agent.isRunning) {
      this.interrupted = true;
      this.agent.abort();
    }
  }

  /** Keys for the suggestion list; false lets the key through to the editor. */
  private completionKey(id: string): boolean {
    const completion = this.completer.current!;
    switch (id) {
      case "up":
      case "ctrl+p":
        this.completer.move(-1);
        return true;
      case "down":
      case "ctrl+n":
        this.completer.move(1);
        return true;
      case "tab":
        this.completer.accept(this.editor.buffer);
        return true;
      case "enter": {
        // A command runs straight away (its arguments are optional); a path is only completed.
        if (this.completer.accept(this.editor.buffer) && completion.kind === "command") this.submit("steer");
        return true;
      }
      case "escape":
        this.completer.dismiss(this.editor.buffer);
        return true;
    }
    return false;
  }

  private overlayKey(key: Key, id: string): void {
    const overlay = this.overlay!;
    if (overlay.kind === "approval") {
      overlay.prompt.handleKey(key);
      if (id === "ctrl+c") this.interrupt();
      return;
    }
    if (overlay.kind === "picker") {
      const result = overlay.list.handleKey(key);
      if (result.type === "select" || result.type === "cancel") {
        this.overlay = undefined;
        overlay.resolve(result.type === "select" ? result.value : undefined);
      }
      return;
    }
    const result = overlay.search.handleKey(key);
    if (result.type === "changed") return;
    this.overlay = undefined;
    this.editor.setText(result.type === "accept" ? result.text : overlay.draft);
  }

  // ---- sending

  private submit(kind: "steer" | "followUp"): void {
    const raw = this.editor.text;
    if (raw.trim() === "") return;
    const text = this.editor.take().trim();
    this.completer.clear();
    this.remember(text);

    if (text.startsWith("!")) {
      this.shell.run(text, (block) => this.add(block));
      this.startTicker();
      return;
    }
    const command = /^\/([\w:?-]+)(?:\s+([\s\S]*))?$/.exec(text);
    if (command) return this.runCommand(command[1]!, command[2]?.trim() ?? "", raw);

    if (this.busy) {
      this.notice("warning", `${this.busy}; send this when it is done.`);
      this.editor.setText(raw);
      return;
    }
    let content: (TextContent | ImageContent)[];
    try {
      content = [...expandMentions(text, this.cwd), ...this.shell.takeContext()];
    } catch (error) {
      this.notice("error", describeError(error));
      this.editor.setText(raw);
      return;
    }
    if (this.agent.isRunning) {
      this.queued.push({ kind, text, content });
      return;
    }
    this.agent.prompt(content).catch((error) => this.notice("error", describeError(error)));
  }

  private runCommand(name: string, args: string, raw: string): void {
    const command = findCommand(name) ?? mcpPromptCommand(this.runtime, name);
    if (!command && findInvocable(this.runtime.extensions, name)) return this.invoke(raw.trim(), name);
    if (!command) {
      const suggestion = suggestCommand(name);
      this.notice("warning", `Unknown command /${name}.${suggestion ? ` Did you mean /${suggestion}?` : ""} /help lists them all.`);
      return;
    }
    if (command.idleOnly && (this.agent.isRunning || this.busy)) {
      this.notice("warning", `/${command.name} has to wait until the agent is done (${this.interruptKey()} interrupts it).`);
      this.editor.setText(raw);
      return;
    }
    Promise.resolve()
      .then(() => command.run(this, args))
      .catch((error) => this.notice("error", `/${command.name}: ${describeError(error)}`))
      .finally(() => this.requestRender());
  }

  /**
   * A markdown command or skill: expanded (its !`cmd` lines run meanwhile), then sent like a typed
   * message, on the command's model for that one run when it names one.
   */
  private invoke(text: string, name: string): void {
    if (this.busy) {
      this.notice("warning", `${this.busy}; send this when it is done.`);
      this.editor.setText(text);
      return;
    }
    this.setActivity(`Preparing /${name}`);
    void prepareInvocation(this.runtime, this.agent, text, { switchModel: !this.agent.isRunning })
      .then((invocation) => {
        if (!invocation) return;
        for (const warning of invocation.warnings) this.notice("warning", warning);
        // An extension's command that did its work itself: nothing to send.
        if (invocation.content.length === 0) return invocation.restore();
        if (this.agent.isRunning) {
          this.queued.push({ kind: "steer", text, content: invocation.content });
          return;
        }
        this.agent
          .prompt(invocation.content)
          .catch((error) => this.notice("error", describeError(error)))
          .finally(() => invocation.restore());
      })
      .catch((error) => this.notice("error", `/${name}: ${describeError(error)}`))
      .finally(() => this.setActivity(undefined));
  }

  private historyStore(): HistoryStore | undefined {
    if (this.history === undefined) {
      try {
        // Opened on first use (Up, Ctrl+R, the first prompt): bun:sqlite is not worth loading before the first frame.
        const { HistoryStore, historyDbPath } = require("../../core/history/store.ts") as typeof import("../../core/history/store.ts");
        this.history = HistoryStore.open(historyDbPath(this.options.env as NodeJS.ProcessEnv));
      } catch (error) {
        // History is a convenience: a read-only or broken home dir must not stop the session.
        this.history = null;
        this.notice("warning", `Prompt history is unavailable: ${describeError(error)}`);
      }
    }
    return this.history ?? undefined;
  }

  private remember(text: string): void {
    try {
      this.historyStore()?.add(text, this.cwd);
    } catch (error) {
      this.notice("warning", `Could not save the prompt to history: ${describeError(error)}`);
    }
  }

  private flash(text: string): void {
    this.hint = { text, until: Date.now() + DOUBLE_PRESS_MS };
    setTimeout(() => this.requestRender(), DOUBLE_PRESS_MS + 10);
  }

  // ---- drawing

  private startTicker(): void {
    if (this.ticker) return;
    this.ticker = setInterval(() => {
      this.view.tick++;
      if (!this.agent.isRunning && !this.busy && !this.activity && !this.shell.running) {
        clearInterval(this.ticker);
        this.ticker = undefined;
      }
      this.requestRender();
    }, TICK_MS);
  }

  requestRender(): void {
    if (this.renderTimer || this.stopped) return;
    const wait = Math.max(0, this.lastRender + FRAME_MS - performance.now());
    this.renderTimer = setTimeout(() => {
      this.renderTimer = undefined;
      this.render();
    }, wait);
  }

  private renderNow(): void {
    clearTimeout(this.renderTimer);
    this.renderTimer = undefined;
    this.render();
  }

  private onResize(): void {
    clearTimeout(this.resizeTimer);
    // Settle first: dragging a window edge sends a burst of sizes.
    this.resizeTimer = setTimeout(() => {
      this.resizeTimer = undefined;
      this.repaint();
    }, 60);
  }

  private render(): void {
    if (this.stopped || this.resizeTimer) return;
    this.lastRender = performance.now();
    const width = this.terminal.columns;
    const chrome = this.chrome(width, this.terminal.rows);
    const { commit, live } = this.transcript.frame(width, Math.max(1, this.terminal.rows - chrome.rows.length));
    this.screen.draw({ commit, live: [...live, ...chrome.rows], ...this.cursorAt(live.length, chrome.cursor) });
  }

  /** Everything again from the top: after a resize, Ctrl+L, or a change of what is expanded. */
  private repaint(): void {
    if (this.stopped) return;
    this.lastRender = performance.now();
    const width = this.terminal.columns;
    const chrome = this.chrome(width, this.terminal.rows);
    const { history, live } = this.transcript.replay(width, Math.max(1, this.terminal.rows - chrome.rows.length));
    this.screen.reset(history, { commit: [], live: [...live, ...chrome.rows], ...this.cursorAt(live.length, chrome.cursor) });
  }

  private cursorAt(offset: number, cursor: { row: number; col: number } | undefined): { cursor?: { row: number; col: number } } {
    return cursor ? { cursor: { row: offset + cursor.row, col: cursor.col } } : {};
  }

  /** Everything below the transcript: queued messages, the status line, the editor or an overlay, suggestions. */
  private chrome(width: number, height: number): { rows: string[]; cursor?: { row: number; col: number } } {
    const { theme } = this.view;
    const rows: string[] = [""];
    for (const q of this.queued.slice(0, 3)) {
      const label = q.kind === "steer" ? "steer" : "follow-up";
      rows.push(paint(truncateText(`  ↳ queued ${label}: ${sanitize(q.text.split("\n")[0]!)}`, width), theme.fg("muted")));
    }
    if (this.queued.length > 3) rows.push(paint(`  … ${this.queued.length - 3} more queued`, theme.fg("dim")));
    rows.push(this.statusLine(width));
    const shellMode = this.editor.text.startsWith("!") && !this.overlay;
    const border = paint("─".repeat(width), shellMode ? theme.fg("bashMode") : this.overlay?.kind === "approval" ? theme.fg("warning") : theme.fg("border"));
    rows.push(border);
    let cursor: { row: number; col: number } | undefined;
    const overlay = this.overlay;
    if (overlay?.kind === "approval") {
      const drawn = overlay.prompt.render(width, theme);
      if (drawn.cursor) cursor = { row: rows.length + drawn.cursor.row, col: drawn.cursor.col };
      rows.push(...drawn.rows);
    } else if (overlay?.kind === "picker") {
      rows.push(...overlay.list.render(width, Math.max(4, Math.min(16, height - rows.length - 6)), theme));
    } else if (overlay?.kind === "search") {
      rows.push(...overlay.search.render(width, theme));
    } else {
      const maxRows = Math.max(1, Math.min(12, Math.floor(height * 0.4)));
      const drawn = this.editor.render(width, maxRows, EMPTY_HINT, shellMode ? "shell" : "prompt");
      cursor = { row: rows.length + drawn.cursor.row, col: drawn.cursor.col };
      rows.push(...drawn.rows);
    }
    rows.push(border);
    if (!overlay) rows.push(...this.completer.render(width, Math.max(2, Math.min(8, Math.floor(height * 0.3))), theme));
    return cursor ? { rows, cursor } : { rows };
  }

  private statusLine(width: number): string {
    const agent = this.agent;
    const spinner = SPINNER[this.view.tick % SPINNER.length]!;
    let activity = "";
    let activityStyle: "accent" | "muted" | "warning" = "muted";
    if (this.hint && this.hint.until > Date.now()) {
      activity = this.hint.text;
      activityStyle = "warning";
    } else if (agent.isRunning) {
      activity = `${spinner} ${this.retrying ?? this.busy ?? "Working"} ${formatElapsed(Date.now() - this.runStarted)} · esc to interrupt`;
      activityStyle = "accent";
    } else if (this.busy ?? this.activity) {
      activity = `${spinner} ${this.busy ?? this.activity}…`;
      activityStyle = "accent";
    } else if (this.shell.running) {
      activity = `${spinner} Running a shell command · esc to stop`;
      activityStyle = "accent";
    } else if (this.shell.contextCount > 0) {
      activity = `+${this.shell.contextCount} shell output for your next message`;
    } else {
      activity = displayPath(this.cwd);
    }
    const model = agent.model;
    return renderStatusLine(
      {
        activity,
        activityStyle,
        model: model.id,
        ...(model.reasoning ? { thinking: agent.thinking } : {}),
        input: agent.usage.input + agent.usage.cacheRead + agent.usage.cacheWrite,
        output: agent.usage.output,
        cost: agent.usage.cost.total,
        contextPercent: Math.min(100, Math.round((agent.contextTokens() / model.contextWindow) * 100)),
        mcp: mcpStatusText(this.runtime),
      },
      width,
      this.view.theme,
    );
  }

  // ---- leaving

  private async shutdown(): Promise<void> {
    clearTimeout(this.resizeTimer);
    this.resizeTimer = undefined;
    for (const pending of this.approvals.splice(0)) pending.resolve({ allow: false, reason: "omp is exiting" });
    if (this.overlay?.kind === "approval") this.overlay.prompt.handleKey({ name: "escape", ctrl: false, alt: false, shift: false });
    this.closeOverlay();
    this.shell.stop();
    if (this.agent.isRunning) {
      this.agent.abort();
      await Promise.race([this.agent.idle(), Bun.sleep(3000)]);
    }
    await this.agent.end("prompt_input_exit");
    this.stopped = true;
    clearInterval(this.ticker);
    clearTimeout(this.renderTimer);
    this.unsubscribe();
    const rows = this.transcript.flush(this.terminal.columns);
    const writer = this.agent.writer;
    if (writer && (await Bun.file(writer.path).exists())) {
      rows.push("", paint(`Session saved. Resume it with: omp -r ${writer.header.id.slice(0, 8)}`, this.view.theme.fg("dim")));
    }
    this.screen.leave(rows);
    writer?.close();
    this.history?.close();
  }
}
