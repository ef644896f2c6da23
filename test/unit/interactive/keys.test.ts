import { describe, expect, test } from "bun:test";
import { type InputEvent, InputReader, keyId } from "../../../cli/interactive/terminal/keys.ts";

const ids = (events: InputEvent[]) => events.map((e) => (e.type === "key" ? keyId(e.key) : e.type === "paste" ? `paste:${e.text}` : `reply:${e.data}`));

function read(...chunks: string[]): string[] {
  const reader = new InputReader();
  const out: string[] = [];
  for (const chunk of chunks) out.push(...ids(reader.feed(chunk)));
  out.push(...ids(reader.flush()));
  return out;
}

describe("InputReader", () => {
  test("text, control keys and legacy escape sequences", () => {
    expect(read("aB\r\x7f\t\x01\x05\x17")).toEqual(["a", "B", "enter", "backspace", "tab", "ctrl+a", "ctrl+e", "ctrl+w"]);
    expect(read("\x1b[A\x1b[B\x1b[C\x1b[D\x1b[H\x1b[F\x1bOH\x1b[3~\x1b[5~\x1b[Z")).toEqual(["up", "down", "right", "left", "home", "end", "home", "delete", "pageup", "shift+tab"]);
    expect(read("\x1b[1;5C\x1b[1;3D\x1b[3;5~")).toEqual(["ctrl+right", "alt+left", "ctrl+delete"]);
  });

  test("Alt as an ESC prefix, and a lone ESC is Escape once nothing follows", () => {
    expect(read("\x1bb\x1bf\x1b\r\x1b\x7f")).toEqual(["alt+b", "alt+f", "alt+enter", "alt+backspace"]);
    expect(read("\x1b")).toEqual(["escape"]);
    const reader = new InputReader();
    expect(reader.feed("\x1b")).toEqual([]);
    expect(reader.pending).toBe(true);
    expect(ids(reader.feed("[A"))).toEqual(["up"]);
  });

  test("Kitty and modifyOtherKeys encodings of modified keys", () => {
    expect(read("\x1b[13;2u\x1b[27;2;13~\x1b[13;3u\x1b[27u\x1b[97;5u\x1b[99;5u")).toEqual(["shift+enter", "shift+enter", "alt+enter", "escape", "ctrl+a", "ctrl+c"]);
    // Key releases are not keys.
    expect(read("\x1b[97;1:3u")).toEqual([]);
  });

  test("sequences split across reads are put back together", () => {
    expect(read("\x1b", "[", "1;5", "C")).toEqual(["ctrl+right"]);
    expect(read("é", "世")).toEqual(["é", "世"]);
  });

  test("bracketed paste arrives as one event, even split, with escapes inside kept as text", () => {
    expect(read("\x1b[200~line 1\nline 2\x1b[201~x")).toEqual(["paste:line 1\nline 2", "x"]);
    expect(read("\x1b[20", "0~abc", "\x1b[A", "def\x1b[2", "01~")).toEqual(["paste:abc\x1b[Adef"]);
  });

  test("terminal replies are not keys", () => {
    expect(read("\x1b]11;rgb:ffff/ffff/ffff\x1b\\\x1b[?1u\x1b[?62;22c")).toEqual(["reply:\x1b]11;rgb:ffff/ffff/ffff\x1b\\", "reply:\x1b[?1u", "reply:\x1b[?62;22c"]);
    expect(read("\x1b]11;rgb:0000/0000/0000\x07")).toEqual(["reply:\x1b]11;rgb:0000/0000/0000\x07"]);
  });
});
