import type { CollabLink } from "../../../core/collab/link.ts";
import type { Settings } from "../../../core/config/settings-schema.ts";
import { Theme, chooseAppearance, colorDepth } from "../render/theme.ts";
import { loadKeymap } from "../terminal/keybindings.ts";
import type { InputEvent } from "../terminal/keys.ts";
import { Terminal } from "../terminal/terminal.ts";
import { GuestView } from "./guest-view.ts";

/** `omp join`: the guest view on a terminal of its own, restored whatever happens. */
export async function runGuest(link: CollabLink, name: string, themeSetting: Settings["theme"], env: NodeJS.ProcessEnv): Promise<void> {
  const terminal = new Terminal();
  let view: GuestView | undefined;
  const early: InputEvent[] = [];
  const restore = () => terminal.stop();
  process.on("exit", restore);
  try {
    const info = await terminal.start((event) => (view ? view.handleInput(event) : early.push(event)));
    const theme = new Theme(chooseAppearance(env, info.background, themeSetting), colorDepth(env));
    view = new GuestView(terminal, theme, loadKeymap(env).keymap, link, name);
    for (const event of early) view.handleInput(event);
    await view.run();
  } finally {
    terminal.stop();
    process.off("exit", restore);
  }
}
