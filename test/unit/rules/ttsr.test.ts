import { describe, expect, test } from "bun:test";
import { PartialJsonStrings, partialJsonStrings } from "../../../core/rules/partial-json-strings.ts";
import { parseRule } from "../../../core/rules/rule.ts";
import { StreamWatch } from "../../../core/rules/stream-watch.ts";
import { DEFAULT_TTSR_SETTINGS, TtsrManager, type TtsrSettings, compileCondition, interrupts } from "../../../core/rules/ttsr.ts";
import type { AssistantEvent } from "../../../core/ai/stream.ts";
import type { AssistantMessage } from "../../../core/ai/messages.ts";

const rule = (name: string, frontmatter: string, body = `Rule ${name}.`) => parseRule(name, `/rules/${name}.md`, "project", `---\n${frontmatter}\n---\n${body}\n`);

function manager(settings: Partial<TtsrSettings> = {}, ...rules: ReturnType<typeof rule>[]): TtsrManager {
  const made = new TtsrManager({ ...DEFAULT_TTSR_SETTINGS, ...settings });
  for (const item of rules) expect(made.addRule(item).added).toBe(true);
  return made;
}

describe("rule files", () => {
  test("the original's fields, lists written either way, the older ttsr_trigger name", () => {
    const parsed = rule("a", "description: No leaks\nttsr_trigger: 'Box::leak\\('\nscope: text, tool:edit(*.rs)\nglobs: src/**\ninterruptMode: never");
    expect(parsed).toMatchObject({ name: "a", description: "No leaks", condition: ["Box::leak\\("], scope: ["text", "tool:edit(*.rs)"], globs: ["src/**"], interruptMode: "never", content: "Rule a." });
    expect(rule("b", "condition:\n  - foo\n  - bar").condition).toEqual(["foo", "bar"]);
  });

  test("a bad interruptMode is dropped and named, the rule still loads; Claude's paths are globs", () => {
    const parsed = rule("c", "condition: x\ninterruptMode: sometimes");
    expect(parsed.interruptMode).toBeUndefined();
    expect(parsed.problem).toContain("interruptMode");
    expect(rule("d", "paths:\n  - 'src/**/*.ts'").globs).toEqual(["src/**/*.ts"]);
  });
});

describe("matching", () => {
  test("inline flags become JavaScript flags", () => {
    expect(compileCondition("(?i)forbidden").test("FORBIDDEN")).toBe(true);
    expect(compileCondition("forbidden").test("FORBIDDEN")).toBe(false);
  });

  test("a pattern split across deltas is found; text and tool streams are buffered apart", () => {
    const watch = new StreamWatch(manager({}, rule("r", "condition: 'FORBIDDEN_API\\('")));
    const message = { role: "assistant", content: [] } as unknown as AssistantMessage;
    const text = (contentIndex: number, delta: string): AssistantEvent => ({ type: "text_delta", contentIndex, delta, partial: message });
    expect(watch.observe(text(0, "call FORBI"))).toBeUndefined();
    expect(watch.observe(text(1, "DDEN_API("))).toBeUndefined();
    expect(watch.observe(text(0, "DDEN_API(x)"))?.rules.map((r) => r.name)).toEqual(["r"]);
  });

  test("thinking is watched only when the scope names it; a tool scope with a glob needs a matching path", () => {
    const watched = manager({}, rule("plain", "condition: bad"), rule("think", "condition: bad\nscope: thinking"), rule("rs", "condition: bad\nscope: tool:edit(*.rs)"));
    expect(watched.check("bad", { source: "thinking" }).map((r) => r.name)).toEqual(["think"]);
    expect(watched.check("bad", { source: "tool", toolName: "edit", path: "src/lib.rs" }).map((r) => r.name)).toEqual(["plain", "rs"]);
    expect(watched.check("bad", { source: "tool", toolName: "edit", path: "src/lib.ts" }).map((r) => r.name)).toEqual(["plain"]);
    expect(watched.check("bad", { source: "tool", toolName: "write", path: "src/lib.rs" }).map((r) => r.name)).toEqual(["plain"]);
  });

  test("top-level globs gate every scope; a glob-shaped condition watches edit and write on those files", () => {
    const watched = manager({}, rule("g", "condition: bad\nglobs: '*.py'"), rule("short", "condition: '*.sql'"));
    expect(watched.check("bad", { source: "text" })).toEqual([]);
    expect(watched.check("bad", { source: "tool", toolName: "bash", path: "tools/run.py" }).map((r) => r.name)).toEqual(["g"]);
    expect(watched.check("anything", { source: "tool", toolName: "write", path: "db/schema.sql" }).map((r) => r.name)).toEqual(["short"]);
    expect(watched.check("anything", { source: "text" })).toEqual([]);
  });

  test("rules that cannot watch anything are refused with why; a bad regex among good ones is a warning", () => {
    const made = new TtsrManager(DEFAULT_TTSR_SETTINGS);
    expect(made.addRule(rule("none", "description: x")).reason).toContain("no condition");
    expect(made.addRule(rule("broken", "condition: '('")).reason).toBe("no condition compiles");
    const mixed = made.addRule(rule("mixed", "condition:\n  - '('\n  - ok"));
    expect(mixed.added).toBe(true);
    expect(mixed.warnings[0]).toContain("not a valid regular expression");
    expect(new TtsrManager({ ...DEFAULT_TTSR_SETTINGS, enabled: false }).addRule(rule("off", "condition: x")).reason).toBe("ttsr.enabled is false");
    expect(new TtsrManager({ ...DEFAULT_TTSR_SETTINGS, disabledRules: ["gone"] }).addRule(rule("gone", "condition: x")).added).toBe(false);
  });
});

describe("repeat policy and interrupt modes", () => {
  test("once: a rule fires once per session, also after a resume restored it", () => {
    const watched = manager({}, rule("r", "condition: bad"));
    expect(watched.check("bad", { source: "text" })).toHaveLength(1);
    watched.markInjected(["r"]);
    for (let turn = 0; turn < 20; turn++) watched.turnEnded();
    expect(watched.check("bad", { source: "text" })).toHaveLength(0);
    const resumed = manager({}, rule("r", "condition: bad"));
    resumed.restoreInjected(["r"]);
    expect(resumed.check("bad", { source: "text" })).toHaveLength(0);
  });

  test("after-gap: again only after repeatGap completed turns", () => {
    const watched = manager({ repeatMode: "after-gap", repeatGap: 2 }, rule("r", "condition: bad"));
    watched.markInjected(["r"]);
    watched.turnEnded();
    expect(watched.check("bad", { source: "text" })).toHaveLength(0);
    watched.turnEnded();
    expect(watched.check("bad", { source: "text" })).toHaveLength(1);
  });

  test("a rule's interruptMode overrides the setting", () => {
    const prose = rule("p", "condition: x\ninterruptMode: prose-only");
    expect(interrupts(prose, "text", DEFAULT_TTSR_SETTINGS)).toBe(true);
    expect(interrupts(prose, "tool", DEFAULT_TTSR_SETTINGS)).toBe(false);
    expect(interrupts(rule("n", "condition: x"), "tool", { ...DEFAULT_TTSR_SETTINGS, interruptMode: "never" })).toBe(false);
  });
});

describe("tool-call streams", () => {
  test("string values of JSON as far as it streamed, escapes decoded, under their keys", () => {
    expect(partialJsonStrings('{"path":"a.rs","edits":[{"oldText":"x","newText":"Box::le')).toEqual([
      { key: "path", value: "a.rs" },
      { key: "oldText", value: "x" },
      { key: "newText", value: "Box::le" },
    ]);
    expect(partialJsonStrings('{"content":"line1\\nq\\"uote\\u0041"}')).toEqual([{ key: "content", value: 'line1\nq"uoteA' }]);
    // Fed in pieces that split an escape: the same values.
    const pieces = new PartialJsonStrings();
    for (const piece of ['{"content":"a\\', 'u00', '41b\\', 'n"}']) pieces.feed(piece);
    expect(pieces.strings).toEqual([{ key: "content", value: "aAb\n" }]);
  });

  test("a call's arguments are matched as what they introduce: its path scopes it, replaced text does not fire", () => {
    const watched = manager({}, rule("leak", "condition: 'Box::leak\\('\nscope: tool:edit(*.rs)"));
    const message = { role: "assistant", content: [{ type: "toolCall", id: "c1", name: "edit", arguments: {} }] } as unknown as AssistantMessage;
    const delta = (text: string): AssistantEvent => ({ type: "toolcall_delta", contentIndex: 0, delta: text, partial: message });
    const watch = new StreamWatch(watched);
    expect(watch.observe(delta('{"path":"src/a.rs","edits":[{"oldText":"Box::leak(v)",'))).toBeUndefined();
    const match = watch.observe(delta('"newText":"let s = Box::leak('));
    expect(match?.rules.map((r) => r.name)).toEqual(["leak"]);
    expect(match?.context).toEqual({ source: "tool", toolName: "edit", path: "src/a.rs" });
    expect(match?.toolCallId).toBe("c1");
  });
});
