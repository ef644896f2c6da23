import type { ModelSelection, Runtime } from "../../core/agent/runtime.ts";
import { watchUsageLimits } from "./commands/usage-ui.ts";
import { type ApprovalRequests, type QuestionRequests, SessionHost } from "../../core/session-host/host.ts";
import { InteractiveApp } from "./app/app.ts";
import { loadKeymap } from "./terminal/keybindings.ts";
import type { InputEvent } from "./terminal/keys.ts";
import { Terminal } from "./terminal/terminal.ts";
import { Theme, chooseAppearance, colorDepth } from "./render/theme.ts";

export interface InteractiveOptions {
  runtime: Runtime;
  selection: ModelSelection;
  resumePath?: string;
  /** Sent as soon as the UI is up: `omp "fix the failing test"` in a terminal. */
  initialPrompt?: string;
  /** The runtime's approver: its requests are shown as the approval overlay once the UI is up. */
  approvals: ApprovalRequests;
  /** The ask tool's questions and plan approvals: shown as the question picker. */
  questions: QuestionRequests;
  /** Applies `--approval-mode plan` to the new host. */
  startMode: (host: SessionHost) => SessionHost;
  /** Work that waited for the first frame (starting git for the system prompt). */
  onFirstFrame?: () => void;
  /** What an untrusted folder was not allowed to change (untrustedNotice). */
  trustNotice?: string;
  /** Hook and extension problems: those from start-up, and a way to say later ones once the UI is up. */
  warnings?: { say?: (line: string) => void; early: string[] };
}

/**
 * `omp` in a terminal: the interactive mode. Sets the terminal up, picks the theme from what the
 * terminal reports, and hands over to the app until the user leaves. The terminal is restored
 * whatever happens, an exception included.
 */
export async function runInteractive(options: InteractiveOptions): Promise<number> {
  const env = options.runtime.options.env;
  const terminal = new Terminal();
  let app: InteractiveApp | undefined;
  // Keys typed while the terminal is being probed are kept for the app.
  const early: InputEvent[] = [];
  const restore = () => terminal.stop();
  process.on("exit", restore);
  // The probes go out first; the agent (system prompt, git summary, session) gets ready while
  // the terminal answers them.
  const probed = terminal.start((event) => (app ? app.handleInput(event) : early.push(event)));
  const agent = options.runtime.createAgent(options.selection, options.resumePath);
  // Both are awaited below; this only keeps an early failure from counting as unhandled meanwhile.
  probed.catch(() => {});
  agent.catch(() => {});
  try {
    const info = await probed;
    const theme = new Theme(chooseAppearance(env, info.background, options.runtime.options.settings.theme), colorDepth(env));
    const { keymap, warning } = loadKeymap(env as NodeJS.ProcessEnv);
    const host = options.startMode(new SessionHost(options.runtime, await agent, options.selection, options.approvals, options.questions));
    app = new InteractiveApp(terminal, theme, {
      runtime: options.runtime,
      host,
      resumePath: options.resumePath,
      env,
      onFirstFrame: options.onFirstFrame,
      appearanceFor: (setting) => chooseAppearance(env, info.background, setting),
      keymap,
      keymapWarning: warning,
      trustNotice: options.trustNotice,
    });
    const ui = app;
    host.subscribe((event) => {
      if (event.type === "approval_request") void ui.approve(event).then((decision) => host.submit({ type: "answer_approval", id: event.id, ...decision }));
      // A question nobody may answer any more (timed out) is refused by the host: nothing to do then.
      if (event.type === "question_request") void ui.overlays.question(event).then((reply) => host.submit({ type: "answer_question", id: event.id, ...reply }).catch(() => undefined));
    });
    watchUsageLimits(options.runtime, () => host.selection, () => ui.requestRender());
    if (options.warnings) {
      options.warnings.say = (line) => ui.notice("warning", line);
      for (const line of options.warnings.early.splice(0)) ui.notice("warning", line);
    }
    return await app.run(options.initialPrompt, early);
  } finally {
    terminal.stop();
    process.off("exit", restore);
  }
}
