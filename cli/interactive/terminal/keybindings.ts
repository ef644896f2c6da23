import { join } from "node:path";
import { closest } from "../../../core/config/config-error.ts";
import { ConfigCache } from "../../../core/config/config-cache.ts";
import { readConfigBytes } from "../../../core/config/config-file.ts";
import { describeError } from "../../../core/errors/omp-error.ts";
import { agentDir, displayPath } from "../../../core/paths.ts";

/**
 * The interactive mode's remappable actions and the keys they are on. Users remap them in
 * `~/.omp/agent/keybindings.yml`: action id → a chord or a list of chords (`[]` unbinds). The
 * editor's readline keys (Ctrl+A, Ctrl+W, ...) and Ctrl+C stay where people expect them.
 */
export const ACTIONS = {
  "app.interrupt": { keys: ["Escape"], description: "interrupt the agent; close a list" },
  "app.exit": { keys: ["Ctrl+D"], description: "quit (on an empty prompt)" },
  "app.suspend": { keys: ["Ctrl+Z"], description: "suspend to the shell; fg comes back" },
  "app.history.search": { keys: ["Ctrl+R"], description: "search prompt history" },
  "app.message.followUp": { keys: ["Alt+Enter"], description: "while the agent works, queue a follow-up; otherwise a new line" },
  "app.thinking.toggle": { keys: ["Ctrl+T"], description: "show or hide thinking" },
  "app.model.cycle": { keys: ["Ctrl+P"], description: "next model (--models limits which)" },
  "app.thinking.cycle": { keys: ["Alt+T"], description: "next thinking level" },
  "app.mode.cycle": { keys: ["Shift+Tab"], description: "next mode: default, plan, auto-accept edits" },
  "app.plan.toggle": { keys: ["Alt+Shift+P"], description: "plan mode on or off" },
  "app.tools.expand": { keys: ["Ctrl+O"], description: "expand or collapse tool output and long messages" },
  "app.display.reset": { keys: ["Ctrl+L"], description: "redraw the screen" },
} as const satisfies Record<string, { keys: readonly string[]; description: string }>;

export type Action = keyof typeof ACTIONS;
export const ACTION_IDS = Object.keys(ACTIONS) as Action[];
export const isAction = (id: string): id is Action => Object.hasOwn(ACTIONS, id);

export const keybindingsPath = (env: NodeJS.ProcessEnv = process.env) => join(agentDir(env), "keybindings.yml");

const MODIFIERS: Record<string, "ctrl" | "alt" | "shift"> = { ctrl: "ctrl", control: "ctrl", alt: "alt", meta: "alt", option: "alt", shift: "shift" };
const NAMES: Record<string, string> = { esc: "escape", return: "enter", del: "delete", bs: "backspace", pgup: "pageup", pgdn: "pagedown", spacebar: "space" };
const NAMED_KEYS = new Set(["escape", "enter", "tab", "space", "backspace", "delete", "insert", "up", "down", "left", "right", "home", "end", "pageup", "pagedown", ...Array.from({ length: 12 }, (_, i) => `f${i + 1}`)]);
/** Keys the editor types or needs unmodified; binding them would take them from the editor. */
const EDITOR_KEYS = new Set(["enter", "tab", "space", "backspace", "delete", "up", "down", "left", "right", "home", "end", "pageup", "pagedown"]);
/** Ctrl+C interrupts, clears and quits in one key; remapping it away has stranded users of other tools. */
const RESERVED = new Set(["ctrl+c"]);

/**
 * A chord as people write it (`Ctrl+R`, `alt+shift+p`, `Shift+Tab`, case-insensitive) as the key
 * id the terminal layer produces (keys.ts `keyId`), or what is wrong with it.
 */
export function parseChord(chord: string): { id: string } | { error: string } {
  const parts = chord.trim().toLowerCase().split("+");
  const rawName = parts.pop() ?? "";
  const held = new Set<string>();
  for (const part of parts) {
    const modifier = MODIFIERS[part.trim()];
    if (!modifier) return { error: `"${chord}": unknown modifier "${part}" (use Ctrl, Alt or Shift)` };
    held.add(modifier);
  }
  const name = NAMES[rawName.trim()] ?? rawName.trim();
  if (name === "") return { error: `"${chord}": no key after the modifiers` };
  if (!NAMED_KEYS.has(name) && [...name].length !== 1) return { error: `"${chord}": unknown key "${rawName}"` };
  const id = `${held.has("ctrl") ? "ctrl+" : ""}${held.has("alt") ? "alt+" : ""}${held.has("shift") ? "shift+" : ""}${name}`;
  const modified = held.has("ctrl") || held.has("alt");
  if (!modified && [...name].length === 1) return { error: `"${chord}": a character without Ctrl or Alt is for typing` };
  if (!modified && !held.has("shift") && EDITOR_KEYS.has(name)) return { error: `"${chord}": ${name} is the editor's` };
  if (RESERVED.has(id)) return { error: `"${chord}": Ctrl+C always interrupts, clears the prompt and quits` };
  return { id };
}

/** How a key id reads in /hotkeys and tips: `ctrl+shift+p` as it is, `escape` as `esc`. */
export function keyLabel(id: string): string {
  return id === "escape" ? "esc" : id;
}

export class Keymap {
  private readonly byKey = new Map<string, Action>();

  /** `bound`: the key ids of each action; an action missing from it has its default keys. */
  constructor(readonly bound: ReadonlyMap<Action, readonly string[]>) {
    for (const action of ACTION_IDS) for (const id of this.keysOf(action)) this.byKey.set(id, action);
  }

  static defaults(): Keymap {
    return new Keymap(new Map());
  }

  /**
   * The defaults with the file's remaps over them. A remapped chord moves: an action whose
   * default key the user gave to another action loses that key (the user's remap wins).
   */
  static withRemaps(remaps: Partial<Record<Action, readonly string[]>>): Keymap {
    const bound = new Map<Action, string[]>();
    const taken = new Set<string>();
    for (const action of ACTION_IDS) {
      const chords = remaps[action];
      if (chords === undefined) continue;
      const ids = chords.map((chord) => {
        const parsed = parseChord(chord);
        if ("error" in parsed) throw new Error(parsed.error);
        return parsed.id;
      });
      bound.set(action, ids);
      for (const id of ids) taken.add(id);
    }
    for (const action of ACTION_IDS) {
      if (bound.has(action)) continue;
      bound.set(action, defaultIds(action).filter((id) => !taken.has(id)));
    }
    return new Keymap(bound);
  }

  /** The action on this key id, if any. */
  action(id: string): Action | undefined {
    return this.byKey.get(id);
  }

  keysOf(action: Action): readonly string[] {
    return this.bound.get(action) ?? defaultIds(action);
  }

  /** For /hotkeys: each action's keys (or "unbound") and what it does. */
  describe(): [string, string][] {
    return ACTION_IDS.map((action) => {
      const keys = this.keysOf(action);
      return [keys.length > 0 ? keys.map(keyLabel).join(", ") : "(unbound)", `${ACTIONS[action].description} (${action})`];
    });
  }
}

function defaultIds(action: Action): string[] {
  return ACTIONS[action].keys.map((chord) => {
    const parsed = parseChord(chord);
    if ("error" in parsed) throw new Error(`default key of ${action}: ${parsed.error}`);
    return parsed.id;
  });
}

/**
 * The keymap from keybindings.yml. A file that does not exist gives the defaults; an unchanged
 * file comes from the config cache (no YAML or zod at start-up); a bad file gives the defaults and
 * a warning to show, so a typo in a key binding never keeps anyone out of omp. An action id omp
 * does not know is one warning line and is skipped; the known ones still apply.
 */
export function loadKeymap(env: NodeJS.ProcessEnv = process.env): { keymap: Keymap; warning?: string } {
  const path = keybindingsPath(env);
  const cache = ConfigCache.open("keybindings", env);
  try {
    const bytes = readConfigBytes(path);
    if (bytes === undefined) {
      cache.forget(path);
      return { keymap: Keymap.defaults() };
    }
    const values = cache.values(path, bytes, (text) => {
      const { keybindingsFileValues } = require("./keybindings-file.ts") as typeof import("./keybindings-file.ts");
      return keybindingsFileValues(text, path);
    });
    const remaps: Partial<Record<Action, readonly string[]>> = {};
    const unknown: string[] = [];
    for (const [id, chords] of Object.entries(values)) {
      if (isAction(id)) remaps[id] = typeof chords === "string" ? [chords] : (chords as string[]);
      else {
        const hint = closest(id, ACTION_IDS);
        unknown.push(`${displayPath(path)}: ${id}: unknown action${hint ? ` (did you mean ${hint}?)` : ""}, skipped; /hotkeys lists omp's actions`);
      }
    }
    return { keymap: Keymap.withRemaps(remaps), ...(unknown.length > 0 ? { warning: unknown.join("\n") } : {}) };
  } catch (error) {
    return { keymap: Keymap.defaults(), warning: `${describeError(error)} (the default keys apply until the file is fixed)` };
  } finally {
    cache.save();
  }
}
