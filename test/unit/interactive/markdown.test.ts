import { describe, expect, test } from "bun:test";
import { MarkdownStream } from "../../../cli/interactive/render/markdown.ts";
import { visibleWidth, wrapSpans } from "../../../cli/interactive/render/text.ts";

const stripAnsi = (text: string) => Bun.stripANSI(text);
import { Theme } from "../../../cli/interactive/render/theme.ts";

const theme = new Theme("dark", "256");

const DOC = `# Title

Some **bold**, *italic*, \`code\` and a [link](https://example.com) in a paragraph long enough to wrap.

1. first
2. second
   - nested item
- [x] done
- [ ] open

> a quote

| Name | Count |
|------|------:|
| a    | 1     |
| bbb  | 22    |

\`\`\`python
def f(x):  # comment
    return "s" + 42
\`\`\`

---
The end.`;

function render(text: string, width: number): string[] {
  const stream = new MarkdownStream(theme);
  stream.append(text);
  stream.finish();
  return stream.render(width).rows.map(stripAnsi);
}

describe("MarkdownStream", () => {
  test("renders headings, emphasis, lists, quotes, tables, code and rules", () => {
    const rows = render(DOC, 60);
    expect(rows[0]).toBe("Title");
    expect(rows.slice(2, 4)).toEqual(["Some bold, italic, code and a link (https://example.com) in", "a paragraph long enough to wrap."]);
    expect(rows).toContain("1. first");
    expect(rows).toContain("  ◦ nested item");
    expect(rows).toContain("☑ done");
    expect(rows).toContain("☐ open");
    expect(rows).toContain("│ a quote");
    expect(rows).toContain("│ bbb  │    22 │");
    expect(rows).toContain("  def f(x):  # comment");
    expect(rows).toContain("─".repeat(60));
    expect(rows[rows.length - 1]).toBe("The end.");
    for (const row of render(DOC, 24)) expect(visibleWidth(row)).toBeLessThanOrEqual(24);
  });

  test("colours code by language: keywords, strings and comments differ", () => {
    const stream = new MarkdownStream(theme);
    stream.append("```ts\nconst s = \"x\"; // note\n```\n");
    stream.finish();
    const row = stream.render(40).rows.find((r) => r.includes("const"))!;
    const styleOf = (word: string) => new RegExp(`\\x1b\\[([0-9;]+)m[^\\x1b]*${word}`).exec(row)?.[1];
    expect(new Set([styleOf("const"), styleOf('"x"'), styleOf("// note")]).size).toBe(3);
  });

  test("rows reported stable never change as more text streams in", () => {
    for (const step of [1, 3, 7, 20]) {
      const stream = new MarkdownStream(theme);
      const seen: string[][] = [];
      for (let i = 0; i < DOC.length; i += step) {
        stream.append(DOC.slice(i, i + step));
        const { rows, stable } = stream.render(50);
        seen.push(rows.slice(0, stable));
      }
      stream.finish();
      const final = stream.render(50).rows;
      for (const stableRows of seen) expect(final.slice(0, stableRows.length)).toEqual(stableRows);
      // Streamed in pieces or given at once, the result is the same.
      expect(final.map(stripAnsi)).toEqual(render(DOC, 50));
    }
  });
});

describe("wrapSpans", () => {
  test("wraps at spaces, breaks long words, keeps styles per piece", () => {
    const lines = wrapSpans([{ text: "hello ", style: "" }, { text: "wonderful", style: "1" }, { text: " world abcdefghijklmnop", style: "" }], 10);
    expect(lines.map((l) => l.map((s) => s.text).join(""))).toEqual(["hello", "wonderful", "world", "abcdefghij", "klmnop"]);
    expect(lines[1]).toEqual([{ text: "wonderful", style: "1" }]);
    expect(wrapSpans([{ text: "世界世界世界", style: "" }], 5).map((l) => l[0]!.text)).toEqual(["世界", "世界", "世界"]);
  });
});
