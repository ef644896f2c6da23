import type { CollabLink } from "../../../core/collab/link.ts";
import { signalExitCode } from "../../../core/errors/exit-codes.ts";
import type { Settings } from "../../../core/config/settings-schema.ts";
import { Theme, chooseAppearance, colorDepth } from "../render/theme.ts";
import { loadKeymap } from "../terminal/keybindings.ts";
import type { InputEvent } from "../terminal/keys.ts";
import { Terminal } from "../terminal/terminal.ts";
import { GuestView } from "./guest-view.ts";

/** `omp join`: the guest view on a terminal of its own, restored whatever happens; the exit status. */
export async function runGuest(link: CollabLink, name: string, themeSetting: Settings["theme"], env: NodeJS.ProcessEnv): Promise<number> {
  const terminal = new Terminal();
  let view: GuestView | undefined;
  const early: InputEvent[] = [];
  const restore = () => terminal.stop();
  process.on("exit", restore);
  // A closed terminal or a kill leaves the room cleanly, and the terminal as it was.
  let signalled: NodeJS.Signals | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    signalled = signal;
    view?.leave();
  };
  process.on("SIGTERM", onSignal);
  process.on("SIGHUP", onSignal);
  try {
    const info = await terminal.start((event) => (view ? view.handleInput(event) : early.push(event)));
    const theme = new Theme(chooseAppearance(env, info.background, themeSetting), colorDepth(env));
    view = new GuestView(terminal, theme, loadKeymap(env).keymap, link, name);
    for (const event of early) view.handleInput(event);
    if (signalled) view.leave();
    await view.run();
    return signalled ? signalExitCode(signalled) : 0;
  } finally {
    terminal.stop();
    process.off("exit", restore);
    process.off("SIGTERM", onSignal);
    process.off("SIGHUP", onSignal);
  }
}
