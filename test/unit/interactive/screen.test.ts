// The append-only renderer against a virtual terminal: whatever sequence of frames it draws, the
// terminal's scrollback plus screen must read as every committed row once, in order, followed by
// the live region, and nothing else.
import { describe, expect, test } from "bun:test";
import { AssistantBlock, type View } from "../../../cli/interactive/render/blocks.ts";
import { type Frame, Screen } from "../../../cli/interactive/terminal/screen.ts";
import { truncateLine } from "../../../cli/interactive/render/text.ts";
import { Theme } from "../../../cli/interactive/render/theme.ts";
import { Transcript } from "../../../cli/interactive/render/transcript.ts";
import { VirtualTerminal } from "../../support/tty-vt.ts";

function random(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 4294967296;
  };
}

function setup(columns: number, rows: number) {
  const vt = new VirtualTerminal(columns, rows);
  const screen = new Screen({ write: (data) => vt.write(data), columns, rows });
  return { vt, screen };
}

const trimBlank = (rows: string[]) => {
  const out = rows.map((row) => row.replace(/ +$/, ""));
  while (out.length > 0 && out[out.length - 1] === "") out.pop();
  return out;
};

/** What the terminal should show: plain text of the rows, cut to the width as the screen cuts them. */
const plain = (rows: readonly string[], columns: number) => rows.map((row) => truncateLine(row, columns).replace(/\x1b\[[0-9;]*m/g, ""));

describe("Screen", () => {
  test("random frames: scrollback + screen = committed rows once, in order, then the live region", () => {
    for (let seed = 1; seed <= 150; seed++) {
      const next = random(seed);
      const columns = 10 + Math.floor(next() * 30);
      const rows = 4 + Math.floor(next() * 12);
      const { vt, screen } = setup(columns, rows);
      const committed: string[] = [];
      const word = (prefix: string) => {
        const extra = "abcdefghij世界ab".slice(0, Math.floor(next() * 14));
        const text = `${prefix}${extra}${next() < 0.2 ? "x".repeat(columns) : ""}`;
        return next() < 0.3 ? `\x1b[1;38;5;33m${text}\x1b[0m` : text;
      };
      for (let step = 0; step < 30; step++) {
        const commit = next() < 0.4 ? Array.from({ length: Math.floor(next() * 2 * rows) }, (_, k) => word(`c${step}.${k}-`)) : [];
        const live = Array.from({ length: Math.floor(next() * (rows + 1)) }, (_, k) => (next() < 0.1 ? "" : word(`l${step}.${k}-`)));
        const frame: Frame = { commit, live };
        if (live.length > 0 && next() < 0.7) frame.cursor = { row: Math.floor(next() * live.length), col: Math.floor(next() * columns) };
        screen.draw(frame);
        committed.push(...commit);
        const expected = trimBlank(plain([...committed, ...live], columns));
        const tape = vt.tape();
        if (JSON.stringify(tape) !== JSON.stringify(expected)) {
          throw new Error(`seed ${seed} step ${step} (${columns}x${rows}):\nexpected ${JSON.stringify(expected)}\ngot      ${JSON.stringify(tape)}`);
        }
        // The hardware cursor is where the frame asked, counted from the live region's top.
        if (frame.cursor) expect([vt.row, vt.col]).toEqual([committed.length + frame.cursor.row - vt.history.length, frame.cursor.col]);
      }
    }
  });

  test("an unchanged frame writes nothing; a changed row rewrites only that row", () => {
    const writes: string[] = [];
    const screen = new Screen({ write: (data) => writes.push(data), columns: 40, rows: 10 });
    screen.draw({ commit: [], live: ["a", "b", "c"] });
    screen.draw({ commit: [], live: ["a", "b", "c"] });
    expect(writes).toHaveLength(1);
    screen.draw({ commit: [], live: ["a", "B", "c"] });
    expect(writes).toHaveLength(2);
    expect(writes[1]).toContain("B");
    expect(writes[1]).not.toContain("a");
    expect(writes[1]).not.toContain("c");
    // Synchronized output around every frame, no full-screen clear on the way.
    for (const data of writes) {
      expect(data.startsWith("\x1b[?2026h")).toBe(true);
      expect(data.endsWith("\x1b[?2026l")).toBe(true);
      expect(data).not.toContain("\x1b[2J");
      expect(data).not.toContain("\x1b[J");
    }
  });

  test("reset replaces scrollback and screen with the history and the live region", () => {
    const { vt, screen } = setup(20, 5);
    screen.draw({ commit: ["old 1", "old 2", "old 3", "old 4", "old 5", "old 6"], live: ["live"] });
    screen.reset(["new 1", "new 2", "new 3", "new 4", "new 5", "new 6", "new 7"], { commit: [], live: ["editor", "status"], cursor: { row: 0, col: 3 } });
    expect(vt.tape()).toEqual(["new 1", "new 2", "new 3", "new 4", "new 5", "new 6", "new 7", "editor", "status"]);
    expect([vt.row, vt.col]).toEqual([3, 3]);
    screen.draw({ commit: ["more"], live: ["editor", "status"] });
    expect(vt.tape()).toEqual(["new 1", "new 2", "new 3", "new 4", "new 5", "new 6", "new 7", "more", "editor", "status"]);
  });
});

describe("Transcript with a streaming reply", () => {
  test("a reply longer than the screen reaches the scrollback exactly once while it streams", () => {
    const view: View = { theme: new Theme("dark", "none"), showThinking: false, expandTools: false, tick: 0 };
    const transcript = new Transcript();
    const block = new AssistantBlock(view);
    transcript.add(block);
    const { vt, screen } = setup(40, 12);
    const text = [
      "Intro paragraph that wraps over the edge of a narrow terminal.",
      "```js",
      ...Array.from({ length: 30 }, (_, i) => `line(${i + 1});`),
      "```",
      ...Array.from({ length: 20 }, (_, i) => `Point ${i + 1} of the list.\n`),
      "Done.",
    ].join("\n");
    block.apply({ type: "text_start", contentIndex: 0 });
    const chrome = ["", "status", "───", "❯ ", "───"];
    for (let i = 0; i < text.length; i += 7) {
      block.apply({ type: "text_delta", contentIndex: 0, delta: text.slice(i, i + 7) });
      const { commit, live } = transcript.frame(40, 12 - chrome.length);
      screen.draw({ commit, live: [...live, ...chrome] });
    }
    block.finish({ role: "assistant", content: [{ type: "text", text }], api: "anthropic-messages", provider: "anthropic", model: "m", usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } }, stopReason: "stop", timestamp: 0 });
    const { commit, live } = transcript.frame(40, 12 - chrome.length);
    screen.draw({ commit, live: [...live, ...chrome] });
    const tape = vt.tape().join("\n");
    for (let i = 1; i <= 30; i++) expect(tape.split(`line(${i});`).length - 1).toBe(1);
    for (let i = 1; i <= 20; i++) expect(tape.split(`Point ${i} of`).length - 1).toBe(1);
    expect(tape.indexOf("line(30);")).toBeLessThan(tape.indexOf("Point 1 of"));
    expect(tape.endsWith(chrome.slice(0, -1).concat("───").join("\n").replace(/ +$/gm, ""))).toBe(true);
  });
});
