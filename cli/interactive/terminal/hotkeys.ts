/**
 * The keys of the interactive mode that keybindings.yml does not remap, as /hotkeys lists them
 * after the remappable actions (keybindings.ts). The handlers live in app.ts and prompt-editor.ts.
 */
export const FIXED_KEYS: [string, string][] = [
  ["enter", "send; while the agent works, steer it (delivered after its current step)"],
  ["shift+enter, ctrl+j, \\ enter", "new line"],
  ["ctrl+c", "interrupt; clear the prompt; twice on an empty prompt to quit"],
  ["esc esc", "on an empty prompt: the session tree (/tree)"],
  ["up / down", "move between lines; at the edges, browse prompt history"],
  ["tab", "complete a /command or @path"],
  ["ctrl+a / ctrl+e", "start / end of line"],
  ["ctrl+b / ctrl+f", "back / forward a character; while a command runs, ctrl+b sends it to the background (/jobs)"],
  ["alt+b / alt+f", "back / forward a word (also ctrl+left / ctrl+right)"],
  ["ctrl+k / ctrl+u", "delete to end / start of line"],
  ["ctrl+w, alt+backspace", "delete the word before the cursor"],
  ["alt+d", "delete the word after the cursor"],
  ["ctrl+y", "paste what was deleted last"],
];
