// keybindings.yml: chords as people write them, remaps over the defaults, and the file's errors.
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { keybindingsFileValues } from "../../../cli/interactive/terminal/keybindings-file.ts";
import { ACTION_IDS, ACTIONS, Keymap, keybindingsPath, loadKeymap, parseChord } from "../../../cli/interactive/terminal/keybindings.ts";
import { scratchDir } from "../config/scratch.ts";

const idOf = (chord: string) => {
  const parsed = parseChord(chord);
  if ("error" in parsed) throw new Error(parsed.error);
  return parsed.id;
};
const errorOf = (chord: string) => {
  const parsed = parseChord(chord);
  return "error" in parsed ? parsed.error : undefined;
};

describe("chords", () => {
  test("written any case, with aliases, they become the terminal layer's key ids", () => {
    expect(idOf("Ctrl+R")).toBe("ctrl+r");
    expect(idOf("alt+shift+P")).toBe("alt+shift+p");
    expect(idOf("Shift+Alt+Ctrl+x")).toBe("ctrl+alt+shift+x");
    expect(idOf("Shift+Tab")).toBe("shift+tab");
    expect(idOf("esc")).toBe("escape");
    expect(idOf("Meta+Return")).toBe("alt+enter");
    expect(idOf("Ctrl+Backspace")).toBe("ctrl+backspace");
    expect(idOf("F5")).toBe("f5");
  });

  test("chords that would take a key from typing or from the editor, or that do not exist, are refused", () => {
    expect(errorOf("a")).toContain("for typing");
    expect(errorOf("Shift+A")).toContain("for typing");
    expect(errorOf("Enter")).toContain("editor");
    expect(errorOf("Hyper+X")).toContain('unknown modifier "hyper"');
    expect(errorOf("Ctrl+")).toContain("no key");
    expect(errorOf("Ctrl+Banana")).toContain('unknown key "banana"');
    expect(errorOf("Ctrl+C")).toContain("Ctrl+C always");
  });

  test("every default parses and no two actions share a key", () => {
    const keys = ACTION_IDS.flatMap((action) => ACTIONS[action].keys.map(idOf));
    expect(new Set(keys).size).toBe(keys.length);
  });
});

describe("keymap", () => {
  test("a remap moves an action; a key the user gives away leaves its default action; [] unbinds", () => {
    const keymap = Keymap.withRemaps({ "app.history.search": ["Ctrl+F"], "app.thinking.toggle": ["Ctrl+R"], "app.suspend": [] });
    expect(keymap.action("ctrl+f")).toBe("app.history.search");
    expect(keymap.action("ctrl+r")).toBe("app.thinking.toggle");
    expect(keymap.action("ctrl+t")).toBeUndefined();
    expect(keymap.action("ctrl+z")).toBeUndefined();
    expect(keymap.keysOf("app.suspend")).toEqual([]);
    // Untouched actions keep their defaults.
    expect(keymap.action("ctrl+l")).toBe("app.display.reset");
    const described = Object.fromEntries(keymap.describe().map(([keys, what]) => [/\((app\.[\w.]+)\)$/.exec(what)![1], keys]));
    expect(described["app.history.search"]).toBe("ctrl+f");
    expect(described["app.suspend"]).toBe("(unbound)");
    expect(described["app.interrupt"]).toBe("esc");
  });

  test("the defaults", () => {
    const keymap = Keymap.defaults();
    expect(keymap.action("ctrl+r")).toBe("app.history.search");
    expect(keymap.action("escape")).toBe("app.interrupt");
    expect(keymap.action("shift+tab")).toBe("app.mode.cycle");
    expect(keymap.action("alt+t")).toBe("app.thinking.cycle");
    expect(keymap.action("alt+shift+p")).toBe("app.plan.toggle");
    expect(keymap.action("ctrl+a")).toBeUndefined();
  });
});

describe("keybindings.yml", () => {
  const file = "/home/u/.omp/agent/keybindings.yml";

  test("valid remaps come back as written", () => {
    expect(keybindingsFileValues("app.history.search: Ctrl+F\napp.suspend: []\napp.exit: [Ctrl+D, Ctrl+Q]\n", file)).toEqual({
      "app.history.search": "Ctrl+F",
      "app.suspend": [],
      "app.exit": ["Ctrl+D", "Ctrl+Q"],
    });
  });

  test("a bad chord and a chord given twice are errors that name the file and the action; an unknown action is kept for loadKeymap to warn about", () => {
    expect(keybindingsFileValues("app.history.serch: Ctrl+F\napp.clear: Ctrl+Banana\n", file)).toEqual({ "app.history.serch": "Ctrl+F", "app.clear": "Ctrl+Banana" });
    expect(() => keybindingsFileValues("app.suspend: Ctrl+Banana\n", file)).toThrow('app.suspend: "Ctrl+Banana": unknown key "banana"');
    expect(() => keybindingsFileValues("app.suspend: Ctrl+G\napp.exit: ctrl+g\n", file)).toThrow('app.exit: "ctrl+g" is also bound to app.suspend');
    expect(() => keybindingsFileValues("app.suspend: 5\n", file)).toThrow("app.suspend");
  });

  test("loading: no file gives the defaults, a file its remaps (also from the cache), a bad file the defaults and a warning", () => {
    const home = scratchDir("omp-keys-");
    const env = { HOME: home, OMP_AGENT_DIR: join(home, "agent") } as NodeJS.ProcessEnv;
    expect(loadKeymap(env)).toEqual({ keymap: Keymap.defaults() });
    mkdirSync(join(home, "agent"), { recursive: true });
    writeFileSync(keybindingsPath(env), "app.history.search: Ctrl+F\n");
    expect(loadKeymap(env).keymap.action("ctrl+f")).toBe("app.history.search");
    // Second time from the config cache: same answer.
    const cached = loadKeymap(env);
    expect(cached.warning).toBeUndefined();
    expect(cached.keymap.action("ctrl+f")).toBe("app.history.search");
    writeFileSync(keybindingsPath(env), "app.history.search: Ctrl+Banana\n");
    const bad = loadKeymap(env);
    expect(bad.keymap.action("ctrl+r")).toBe("app.history.search");
    expect(bad.warning).toContain("keybindings.yml: app.history.search");
    expect(bad.warning).toContain("the default keys apply until the file is fixed");
    // The original omp's ids omp does not have: one line each, the known remap still applies, from the cache too.
    writeFileSync(keybindingsPath(env), "app.history.serch: Ctrl+F\napp.session.tree: Ctrl+X\napp.suspend: Ctrl+G\n");
    for (const loaded of [loadKeymap(env), loadKeymap(env)]) {
      expect(loaded.keymap.action("ctrl+g")).toBe("app.suspend");
      expect(loaded.keymap.action("ctrl+f")).toBeUndefined();
      expect(loaded.warning?.split("\n")).toEqual([
        expect.stringMatching(/keybindings\.yml: app\.history\.serch: unknown action \(did you mean app\.history\.search\?\), skipped/),
        expect.stringMatching(/keybindings\.yml: app\.session\.tree: unknown action, skipped/),
      ]);
    }
  });
});
