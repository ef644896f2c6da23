import type { Key } from "../terminal/keys.ts";
import type { Theme } from "../render/theme.ts";

/** A command's own screen in place of the editor until it closes: a job's live output (/jobs), the session tree, the settings. */
export interface Panel {
  /** "close" when the panel should go. */
  handleKey(key: Key): "close" | undefined;
  render(width: number, height: number, theme: Theme): string[];
  paste?(text: string): void;
  dispose?(): void;
}
