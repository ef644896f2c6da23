import type { AgentEvent } from "../../../core/agent/events.ts";
import type { ModelSelection, Runtime } from "../../../core/agent/runtime.ts";
import type { SessionControl } from "../../../core/agent/session-control.ts";
import { type Accepted, type SessionHost, type SessionView, isAgentEvent } from "../../../core/session-host/host.ts";
import type { Message } from "../../../core/ai/messages.ts";
import { describeError } from "../../../core/errors/omp-error.ts";
import { displayPath } from "../../../core/paths.ts";
import type { ApprovalDecision, ApprovalRequest } from "../../../core/tools/approval.ts";
import { signalExitCode } from "../../../core/errors/exit-codes.ts";
import { type NoticeKind, type View, notice } from "../render/blocks.ts";
import { COMMANDS, type CommandHost, escapeTwice, findCommand, suggestCommand } from "../commands/commands.ts";
import { mcpStatusText, watchMcpStatus } from "../commands/mcp-commands.ts";
import { extensionCommandInfos } from "../commands/extension-commands.ts";
import { findInvocable } from "../../../core/extensions/expand.ts";
import { Completer } from "../commands/completion.ts";
import { ConversationBlocks } from "../render/conversation-blocks.ts";
import { type InputEvent, type Key, keyId } from "../terminal/keys.ts";
import { Overlays } from "./overlays.ts";
import type { Panel } from "../widgets/panel.ts";
import { cycleMode, policyStatus } from "../commands/mode-commands.ts";
import { PromptEditor } from "../widgets/prompt-editor.ts";
import { PromptHistory } from "../widgets/prompt-history.ts";
import { Frames } from "../terminal/frames.ts";
import { Screen } from "../terminal/screen.ts";
import type { Choice } from "../widgets/select-list.ts";
import { sessionStatus } from "./session-status.ts";
import { limitStatusText } from "../commands/usage-ui.ts";
import { checkForUpdate, cycleModelKey, cycleThinkingKey } from "./app-keys.ts";
import { ShellRunner } from "../commands/shell.ts";
import { existingSessionJobs, watchSessionJobs } from "../../../core/shell/session-jobs.ts";
import type { JobManager } from "../../../core/shell/jobs.ts";
import { type Chrome, renderChrome } from "./chrome.ts";
import { renderStatusLine } from "../widgets/status-line.ts";
import type { Terminal } from "../terminal/terminal.ts";
import { paint } from "../render/text.ts";
import type { Appearance, Theme } from "../render/theme.ts";
import type { Settings } from "../../../core/config/settings-schema.ts";
import { type Block, Transcript } from "../render/transcript.ts";
import { Keymap, keyLabel } from "../terminal/keybindings.ts";
import { welcomeBlock } from "../render/welcome.ts";
import type { CollabLink } from "../../../core/collab/link.ts";
import { endSharing, sharingStatus } from "../commands/collab-commands.ts";

/** A second Ctrl+C within this long quits. */
const DOUBLE_PRESS_MS = 1000;

export interface AppOptions {
  runtime: Runtime;
  /** The session: its agent, model and switching, and the approvals it asks. */
  host: SessionHost;
  resumePath?: string;
  env: Record<string, string | undefined>;
  onFirstFrame?: () => void;
  /** The keys of the remappable actions (keybindings.yml); the defaults when absent. */
  keymap?: Keymap;
  /** The colours for a `theme` setting, as the terminal's background decides `auto`: /settings changes apply at once. */
  appearanceFor?: (setting: Settings["theme"]) => Appearance;
  /** What was wrong with keybindings.yml, shown once the session is up. */
  keymapWarning?: string;
  /** Shown once the session is up: what an untrusted folder was not allowed to change. */
  trustNotice?: string;
}

/**
 * The interactive session: owns the transcript, the editor and the overlays (overlays.ts), turns
 * agent events into blocks (conversation-blocks.ts) and keys into actions, and has a frame drawn
 * whenever something changed (frames.ts).
 */
export class InteractiveApp implements CommandHost {
  readonly view: View;
  readonly keymap: Keymap;
  readonly runtime: Runtime;
  readonly cwd: string;
  readonly control: SessionControl;

  private readonly screen: Screen;
  private readonly transcript = new Transcript();
  readonly editor: PromptEditor;
  private readonly completer: Completer;
  private readonly shell: ShellRunner;
  readonly overlays: Overlays;
  readonly blocks: ConversationBlocks;
  private unsubscribe: () => void = () => {};
  private runStarted = 0;
  private busy: string | undefined;
  /** A command's transient activity ("Looking for models"). */
  private activity: string | undefined;
  private retrying: string | undefined;
  private lastError: string | undefined;
  private hint: { text: string; until: number } | undefined;
  private lastCtrlC = 0;
  private readonly frames: Frames;
  private inputFrame = false;
  private readonly history: PromptHistory;
  private stopped = false;
  /** /join's guest view has the terminal: keys go to it. */
  private guestInput: ((event: InputEvent) => void) | undefined;
  private finish: () => void = () => {};
  private readonly finished = new Promise<void>((resolve) => (this.finish = resolve));

  constructor(
    private readonly terminal: Terminal,
    theme: Theme,
    readonly options: AppOptions,
  ) {
    this.view = { theme, showThinking: false, expandTools: false, tick: 0 };
    this.keymap = options.keymap ?? Keymap.defaults();
    this.runtime = options.runtime;
    this.cwd = options.runtime.options.cwd;
    this.screen = new Screen(terminal);
    this.frames = new Frames(
      terminal,
      this.screen,
      this.transcript,
      (width, height) => this.chrome(width, height),
      () => {
        this.view.tick++;
        return Boolean(this.agent.isRunning || this.busy || this.activity || this.shell.running);
      },
    );
    this.history = new PromptHistory(options.env as NodeJS.ProcessEnv, (text) => this.notice("warning", text));
    this.editor = new PromptEditor(theme, () => this.history.recent(500));
    this.overlays = new Overlays(this.editor, () => this.requestRender());
    this.blocks = new ConversationBlocks(this.view, (block) => this.add(block));
    this.completer = new Completer(() => [...COMMANDS, ...extensionCommandInfos(this.runtime.extensions, COMMANDS)], this.cwd, () => this.requestRender());
    this.shell = new ShellRunner(this.view, options.host, () => this.requestRender());
    this.control = options.host.sessionControl;
    watchMcpStatus(this.runtime, () => this.requestRender());
    watchSessionJobs(() => this.requestRender());
  }

  /** The session's job manager once a command has run (the job code is not loaded before). */
  private get jobs(): JobManager | undefined {
    return existingSessionJobs(this.agent) as JobManager | undefined;
  }

  get agent(): SessionView {
    return this.options.host.view;
  }

  private get host(): SessionHost {
    return this.options.host;
  }

  get selection(): ModelSelection {
    return this.control.selection;
  }

  /** Runs until the user leaves; resolves with the exit status. */
  async run(initialPrompt: string | undefined, pending: InputEvent[]): Promise<number> {
    // The host follows the session across switches: one subscription holds for all of them.
    this.unsubscribe = this.host.subscribe((event) => isAgentEvent(event) && this.onAgentEvent(event));
    this.add(welcomeBlock(this.view, this.agent.model, this.cwd, () => this.interruptKey()));
    if (this.options.keymapWarning) this.notice("warning", this.options.keymapWarning);
    for (const warning of [...(this.selection.warning ? [this.selection.warning] : []), ...this.agent.warnings]) this.notice("warning", warning);
    if (this.options.trustNotice) this.notice("warning", this.options.trustNotice);
    this.runtime.extensions.catalog.setReporter((problem) => this.notice("warning", problem));
    if (this.options.resumePath) this.blocks.showConversation(this.agent.messages, displayPath(this.options.resumePath));
    const stopResize = this.terminal.onResize(() => this.frames.resized());
    let signalled: NodeJS.Signals | undefined;
    const onSignal = (signal: NodeJS.Signals) => {
      signalled = signal;
      this.exit();
    };
    process.on("SIGTERM", onSignal);
    process.on("SIGHUP", onSignal);
    this.frames.render();
    this.options.onFirstFrame?.();
    checkForUpdate(this.runtime.options.settings.update, this.options.env as NodeJS.ProcessEnv, (text) => this.notice("info", text));
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
    return signalled ? signalExitCode(signalled) : 0;
  }

  // ---- agent events

  /** Blocks for the conversation (see conversation-blocks.ts); here, the run's state. */
  private onAgentEvent(event: AgentEvent): void {
    this.blocks.apply(event);
    switch (event.type) {
      case "agent_start":
        this.runStarted = Date.now();
        this.lastError = undefined;
        this.frames.startTicker();
        break;
      case "message_start":
        if (event.message.role === "assistant") this.retrying = undefined;
        break;
      case "message_end":
        if (event.message.role === "assistant" && event.message.stopReason === "error") this.lastError = event.message.errorMessage;
        break;
      case "auto_retry_start":
        this.retrying = `Retrying in ${(event.delayMs / 1000).toFixed(1)}s (attempt ${event.attempt}): ${event.reason}`;
        break;
      case "auto_compaction_start":
        this.busy = "Compacting the conversation";
        this.frames.startTicker();
        break;
      case "auto_compaction_end":
        this.busy = undefined;
        if (event.error) this.notice("error", `Compaction failed: ${event.error}`);
        else this.notice("success", `Compacted ${event.tokensBefore ?? 0} tokens of older messages into a summary.`);
        break;
      case "agent_end":
        this.runStarted = 0;
        this.retrying = undefined;
        if (event.error && event.error !== this.lastError) this.notice(event.stopReason === "hook" ? "warning" : "error", event.error);
        if (event.stopReason === "denied") this.notice("info", "Stopped: you denied that call. Tell omp what to do instead.");
        break;
    }
    this.requestRender();
  }

  /** An interrupt gives the queued messages back to the editor instead of to the model. */
  private restoreQueued(): void {
    const texts = this.host.takeQueued().map((queued) => queued.text);
    if (texts.length === 0) return;
    const draft = this.editor.text;
    this.editor.setText([...texts, ...(draft ? [draft] : [])].join("\n\n"));
    this.completer.clear();
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
    if (text) this.frames.startTicker();
    this.requestRender();
  }

  pick<T>(title: string, choices: Choice<T>[], filterable = true): Promise<T | undefined> {
    return this.overlays.pick(title, choices, filterable);
  }

  get sessionHost(): SessionHost { return this.options.host; }
  setEditorText(text: string): void { this.editor.setText(text); }
  setModel(selection: ModelSelection): void {
    this.host.useModel(selection);
  }

  conversation(): Promise<Message[]> {
    return this.control.conversation();
  }

  async switchSession(resumePath?: string): Promise<void> {
    let switched: Awaited<ReturnType<SessionHost["switchSession"]>>;
    try {
      switched = await this.host.switchSession(resumePath);
    } catch (error) {
      this.notice("error", describeError(error));
      return;
    }
    const { agent } = switched;
    for (const warning of [...(switched.warning ? [switched.warning] : []), ...agent.warnings]) this.notice("warning", warning);
    if (resumePath) this.blocks.showConversation(agent.messages, displayPath(resumePath));
    else this.notice("info", "New session.");
  }

  async compact(instructions?: string): Promise<void> {
    this.busy = "Compacting the conversation";
    this.frames.startTicker();
    this.requestRender();
    try {
      if (!(await this.host.submit({ type: "compact", ...(instructions ? { instructions } : {}) }))) this.notice("info", "Nothing to compact yet: the conversation is still short.");
    } finally {
      this.busy = undefined;
      this.requestRender();
    }
  }

  copyToClipboard(text: string): void {
    // OSC 52: the terminal (or tmux with set-clipboard) puts it on the system clipboard, also over SSH.
    this.terminal.write(`\x1b]52;c;${Buffer.from(text).toString("base64")}\x07`);
  }

  openPanel(make: (changed: () => void) => Panel): void {
    this.overlays.openPanel(make(() => this.requestRender()));
  }

  /** /settings wrote a file: the settings read once at start that can change in place do so now. */
  settingsChanged(before: Pick<Settings, "approvalMode">): void {
    const settings = this.runtime.options.settings;
    if (this.options.appearanceFor) this.view.theme.appearance = this.options.appearanceFor(settings.theme);
    if (settings.approvalMode !== before.approvalMode) this.agent.options.gate.mode = settings.approvalMode;
    this.frames.repaint();
  }

  /** Ctrl+B: the running `!command`, or the model's running bash calls, go on as background jobs. */
  private background(): boolean {
    // The user's `!command` and the model's bash calls alike are foreground jobs of the session.
    const jobs = this.jobs;
    const foreground = jobs?.foreground() ?? [];
    if (foreground.length === 0) return false;
    for (const job of foreground) jobs!.toBackground(job);
    const ids = foreground.map((job) => job.id).join(", ");
    this.flash(`Job${foreground.length > 1 ? "s" : ""} ${ids} run${foreground.length > 1 ? "" : "s"} in the background: /jobs to watch or kill`);
    return true;
  }

  exit(): void {
    this.finish();
  }

  async joinAsGuest(link: CollabLink, name: string): Promise<void> {
    const { GuestView } = await import("../guest/guest-view.ts");
    this.frames.pause();
    this.screen.leave(this.transcript.flush(this.terminal.columns));
    const guest = new GuestView(this.terminal, this.view.theme, this.keymap, link, name);
    this.guestInput = (event) => guest.handleInput(event);
    try {
      await guest.run();
    } finally {
      this.guestInput = undefined;
      this.frames.resume();
    }
  }

  /** The runtime's approver forwards here: one prompt at a time, in the order the calls asked. */
  approve(request: ApprovalRequest): Promise<ApprovalDecision> {
    return this.stopped ? Promise.resolve({ allow: false, reason: "omp is exiting" }) : this.overlays.approve(request);
  }

  // ---- input

  handleInput(event: InputEvent): void {
    if (this.stopped) return;
    if (this.guestInput) return this.guestInput(event);
    if (event.type === "paste") {
      if (this.overlays.kind) this.overlays.paste(event.text);
      else {
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
        this.frames.renderNow();
      });
    }
  }

  private handleKey(key: Key): void {
    const id = keyId(key);
    const action = this.keymap.action(id);
    // These work everywhere, over lists and prompts too.
    switch (action) {
      case "app.display.reset":
        return this.frames.repaint();
      case "app.suspend":
        return this.suspend();
      case "app.thinking.toggle":
        this.view.showThinking = !this.view.showThinking;
        return this.frames.repaint();
      case "app.tools.expand":
        this.view.expandTools = !this.view.expandTools;
        // An approval's change grows with the tools: the same key shows all of it.
        this.overlays.expand(this.view.expandTools);
        return this.frames.repaint();
    }
    if (this.overlays.kind) return this.overlays.handleKey(key, id, () => this.interrupt());
    if (this.completer.current) {
      const taken = this.completer.handleKey(id, this.editor.buffer);
      if (taken === "run") return this.submit("steer");
      if (taken === "taken") return;
    }

    // Ctrl+B moves the cursor back a character, except while a command runs in the foreground.
    if (id === "ctrl+b" && this.background()) return;
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
        else if (this.editor.isEmpty) escapeTwice(this);
        return;
      case "app.exit":
        if (this.editor.isEmpty) return this.exit();
        break;
      case "app.history.search":
        return this.overlays.searchHistory((query) => this.history.search(query, 200));
      case "app.message.followUp":
        if (this.agent.isRunning) return this.submit("followUp");
        this.editor.buffer.insert("\n");
        return;
      case "app.thinking.cycle":
        return cycleThinkingKey(this.host, (text) => this.flash(text));
      case "app.model.cycle": return cycleModelKey(this.host, (text) => this.flash(text));
      case "app.mode.cycle":
      case "app.plan.toggle":
        return cycleMode(this.options.host, action);
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

  /**
   * Ctrl+Z: the live rows (status, editor) give way to the shell; after `fg` they are drawn again
   * below what the shell printed. The scrollback keeps the transcript as it was.
   */
  private suspend(): void {
    this.screen.leave([]);
    this.terminal.suspend();
    this.frames.render();
  }

  private interrupt(): void {
    if (this.shell.running) this.shell.stop();
    if (this.agent.isRunning) {
      this.restoreQueued();
      void this.host.submit({ type: "abort" });
    }
  }

  // ---- sending

  private submit(kind: "steer" | "followUp"): void {
    const raw = this.editor.text;
    if (raw.trim() === "") return;
    const text = this.editor.take().trim();
    this.completer.clear();
    this.history.remember(text, this.cwd);

    if (text.startsWith("!")) {
      this.shell.run(text, (block) => this.add(block));
      this.frames.startTicker();
      return;
    }
    const command = /^\/([\w:?-]+)(?:\s+([\s\S]*))?$/.exec(text);
    if (command) return this.runCommand(command[1]!, command[2]?.trim() ?? "", raw);
    this.send(kind, text, raw);
  }

  /**
   * A message, a markdown command or a skill, as the host takes it in every mode: expanded (a
   * command's !`cmd` lines run meanwhile, `@file` mentions attach), then run, or queued while the
   * agent works.
   */
  private send(kind: "steer" | "followUp", text: string, raw: string, name?: string): void {
    if (this.busy) {
      this.notice("warning", `${this.busy}; send this when it is done.`);
      this.editor.setText(raw);
      return;
    }
    if (name) this.setActivity(`Preparing /${name}`);
    const accepted = (accepted: Accepted) => {
      if (name) this.setActivity(undefined);
      for (const warning of accepted.warnings) this.notice("warning", warning);
    };
    this.host
      .submit({ type: kind === "steer" ? "steer" : "follow_up", content: [{ type: "text", text }] }, { accepted })
      .catch((error) => this.notice("error", name ? `/${name}: ${describeError(error)}` : describeError(error)))
      .finally(() => {
        if (name) this.setActivity(undefined);
      });
  }

  private runCommand(name: string, args: string, raw: string): void {
    const command = findCommand(name);
    // A provider's name not known yet (an MCP server still starting) is waited for, not unknown.
    if (!command && (findInvocable(this.runtime.extensions, name) || this.runtime.extensions.providerOwning(name))) return this.send("steer", raw.trim(), raw.trim(), name);
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

  private flash(text: string): void {
    this.hint = { text, until: Date.now() + DOUBLE_PRESS_MS };
    setTimeout(() => this.requestRender(), DOUBLE_PRESS_MS + 10);
  }

  // ---- drawing

  requestRender(): void {
    this.frames.request();
  }

  /** Everything below the transcript (chrome.ts), with this session's status line. */
  private chrome(width: number, height: number): Chrome {
    const jobs = this.jobs;
    const status = sessionStatus({
      agent: this.agent,
      tick: this.view.tick,
      hint: this.hint,
      retrying: this.retrying,
      busy: this.busy,
      activity: this.activity,
      shell: this.shell,
      runStarted: this.runStarted,
      cwd: this.cwd,
      foregroundCommand: (jobs?.foreground().length ?? 0) > 0,
      runningJobs: jobs?.list().filter((job) => job.running).length ?? 0,
    });
    const statusLine = renderStatusLine({ ...status, mcp: mcpStatusText(this.runtime), limit: limitStatusText(this.runtime), ...policyStatus(this.options.host), collab: sharingStatus(this.options.host) }, width, this.view.theme);
    return renderChrome({ queued: this.host.queued, statusLine, overlays: this.overlays, editor: this.editor, completer: this.completer, theme: this.view.theme }, width, height);
  }

  // ---- leaving

  private async shutdown(): Promise<void> {
    this.frames.cancelResize();
    await endSharing(this.options.host);
    this.overlays.shutdown();
    this.shell.stop();
    if (this.agent.isRunning) await Promise.race([this.host.submit({ type: "abort" }), Bun.sleep(3000)]);
    await this.host.end("prompt_input_exit");
    this.stopped = true;
    this.frames.stop();
    this.unsubscribe();
    const rows = this.transcript.flush(this.terminal.columns);
    const writer = this.agent.writer;
    if (writer && (await Bun.file(writer.path).exists())) {
      rows.push("", paint(`Session saved. Resume it with: omp -r ${writer.header.id.slice(0, 8)}`, this.view.theme.fg("dim")));
    }
    this.screen.leave(rows);
    writer?.close();
    this.history.close();
  }
}
