// The guards the YAML reader puts in front of the parser for untrusted config files.
import { describe, expect, test } from "bun:test";
import { flowDepth, parseYamlMapping } from "../../../core/config/yaml-file.ts";

describe("flow nesting depth", () => {
  test("counts [ and { but not inside quotes or comments", () => {
    expect(flowDepth("a: [1, {b: [2]}]")).toBe(3);
    expect(flowDepth(`a: "[[[[" # [[[[\nb: '[[''[['\nc: [x]`)).toBe(1);
    expect(flowDepth("note: it's [fine]")).toBe(1);
  });

  test("stops counting past the limit", () => {
    expect(flowDepth("[".repeat(1_000_000), 100)).toBe(101);
  });
});

describe("parseYamlMapping refuses what would hang or blow up the parser", () => {
  test("an alias bomb", () => {
    const levels = ["a: &a [x, x, x, x, x, x, x, x, x]"];
    for (let i = 1; i < 9; i++) levels.push(`${"abcdefghi"[i]}: &${"abcdefghi"[i]} [${Array(9).fill(`*${"abcdefghi"[i - 1]}`).join(", ")}]`);
    expect(() => parseYamlMapping(levels.join("\n"), "/x/config.yml")).toThrow("/x/config.yml: refused: its YAML aliases expand to too much data (an alias bomb)");
  });

  test("deep flow nesting, closed or not, is refused fast", () => {
    const started = performance.now();
    expect(() => parseYamlMapping(`x: ${"[".repeat(200_000)}`, "/x/c.yml")).toThrow("nest more than 100 levels deep");
    expect(() => parseYamlMapping(`x: ${"[".repeat(500)}${"]".repeat(500)}`, "/x/c.yml")).toThrow("nest more than 100 levels deep");
    expect(performance.now() - started).toBeLessThan(1000);
  });

  test("a few aliases and ordinary nesting still parse", () => {
    expect(parseYamlMapping("base: &b {theme: dark}\nother: *b\nlist: [[1, [2]]]", "/x/c.yml")).toEqual({
      base: { theme: "dark" },
      other: { theme: "dark" },
      list: [[1, [2]]],
    });
  });
});

describe("agent-file frontmatter from an untrusted folder", () => {
  test("deep nesting is skipped with a reason, fast; an alias bomb is read line by line, as skills' frontmatter is (issue 27)", async () => {
    const { parseAgentFile } = await import("../../../core/extensions/agents/definitions.ts");
    const started = performance.now();
    expect(parseAgentFile("/p/.claude/agents/x.md", `---\ndescription: ${"[".repeat(100_000)}\n---\nbody`)).toEqual({
      problem: "/p/.claude/agents/x.md: the frontmatter's YAML is refused: its [ ] and { } nest more than 100 levels deep; skipped",
    });
    expect(performance.now() - started).toBeLessThan(1000);
    const names = "abcdefghi";
    const bomb = [`a: &a [${Array(9).fill("x").join(", ")}]`];
    for (let i = 1; i < names.length; i++) bomb.push(`${names[i]}: &${names[i]} [${Array(9).fill(`*${names[i - 1]}`).join(", ")}]`);
    const result = parseAgentFile("/p/a.md", `---\ndescription: d\n${bomb.join("\n")}\n---\nbody`);
    expect(result).toMatchObject({ name: "a", description: "d", systemPrompt: "body" });
  });
});

describe("skill and command frontmatter", () => {
  test("deep nesting is refused before the parser and the flat reading kept", async () => {
    const { parseFrontmatter } = await import("../../../core/extensions/frontmatter.ts");
    const started = performance.now();
    const result = parseFrontmatter(`---\nname: s\nnested:\n  x: ${"[".repeat(100_000)}\n---\nbody`);
    expect(result.problem).toBe("invalid YAML frontmatter (its [ ] and { } nest more than 100 levels deep); read it line by line instead");
    expect(result.body).toBe("body");
    expect(performance.now() - started).toBeLessThan(1000);
  });
});
