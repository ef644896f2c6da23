import { describe, expect, test } from "bun:test";
import { openSync } from "node:fs";
import { Terminal } from "../../../cli/interactive/terminal/terminal.ts";
import type { TtyDriver } from "../../../cli/interactive/terminal/tty-driver.ts";
import { chooseAppearance, colorDepth, parseOscColor, Theme } from "../../../cli/interactive/render/theme.ts";

/** A TTY stand-in: `feed` is what the "terminal" replies; raw mode switches are recorded. */
class FakeTty implements TtyDriver {
  columns = 80;
  rows = 24;
  raw: boolean[] = [];
  private onData: ((text: string) => void) | undefined;
  open(onData: (text: string) => void) {
    this.raw.push(true);
    this.onData = onData;
  }
  onResize() {
    return () => {};
  }
  pause() {
    this.raw.push(false);
  }
  resume() {
    this.raw.push(true);
  }
  close() {
    this.raw.push(false);
    this.onData = undefined;
  }
  feed(text: string) {
    this.onData?.(text);
  }
}

async function probe(answer: string | undefined) {
  const tty = new FakeTty();
  const terminal = new Terminal(tty, openSync("/dev/null", "w"));
  const keys: string[] = [];
  const started = terminal.start((event) => keys.push(event.type === "key" ? event.key.name : event.type));
  // The reply arrives in pieces, as over a slow link.
  if (answer !== undefined) for (const piece of answer.match(/[\s\S]{1,3}/g)!) tty.feed(piece);
  const info = await started;
  tty.feed("x");
  terminal.stop();
  return { info, keys, raw: tty.raw };
}

describe("Terminal start-up probes", () => {
  test("OSC 11 background and Kitty flags are read from split replies, none leak as keys", async () => {
    const { info, keys, raw } = await probe("\x1b]11;rgb:ffff/ffff/f0f0\x1b\\\x1b[?0u\x1b[?62;22c");
    expect(info.background).toEqual([1, 1, 0xf0f0 / 0xffff]);
    expect(info.kitty).toBe(true);
    expect(keys).toEqual(["x"]);
    expect(raw).toEqual([true, false]);
  });

  test("a terminal that answers only DA1 gets no Kitty mode and no background", async () => {
    const { info } = await probe("\x1b[?1;2c");
    expect(info).toEqual({ kitty: false });
  });

  test("a terminal that answers nothing is drawn for after the timeout", async () => {
    const started = performance.now();
    const { info } = await probe(undefined);
    expect(info.kitty).toBe(false);
    expect(performance.now() - started).toBeLessThan(1000);
  });
});

describe("theme choice", () => {
  test("OMP_THEME, then the theme setting, then the reported background, then COLORFGBG, then dark", () => {
    expect(chooseAppearance({ OMP_THEME: "light" }, [0, 0, 0])).toBe("light");
    expect(chooseAppearance({ OMP_THEME: "dark" }, [1, 1, 1], "light")).toBe("dark");
    expect(chooseAppearance({}, [0, 0, 0], "light")).toBe("light");
    expect(chooseAppearance({ COLORFGBG: "0;15" }, [1, 1, 1], "dark")).toBe("dark");
    expect(chooseAppearance({}, [0.98, 0.98, 0.95], "auto")).toBe("light");
    expect(chooseAppearance({}, [0.98, 0.98, 0.95])).toBe("light");
    expect(chooseAppearance({ COLORFGBG: "0;15" }, [0.1, 0.1, 0.1])).toBe("dark");
    expect(chooseAppearance({ COLORFGBG: "0;15" }, undefined)).toBe("light");
    expect(chooseAppearance({ COLORFGBG: "15;default;0" }, undefined)).toBe("dark");
    expect(chooseAppearance({}, undefined)).toBe("dark");
  });

  test("colour depth: NO_COLOR, truecolor, 256", () => {
    expect(colorDepth({ NO_COLOR: "1", COLORTERM: "truecolor" })).toBe("none");
    expect(colorDepth({ COLORTERM: "24bit" })).toBe("truecolor");
    expect(colorDepth({ TERM: "xterm-256color" })).toBe("256");
    expect(new Theme("dark", "none").fg("accent", "bold")).toBe("1");
    expect(new Theme("dark", "truecolor").fg("accent")).toBe("38;2;122;162;247");
  });

  test("OSC colour formats", () => {
    expect(parseOscColor("rgb:00/80/ff")).toEqual([0, 0x80 / 0xff, 1]);
    expect(parseOscColor("#ffffff")).toEqual([1, 1, 1]);
    expect(parseOscColor("nonsense")).toBeUndefined();
  });
});
