import { describe, expect, test } from "bun:test";
import { appendFileSync, existsSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { COMPACTION_SUMMARY_PREFIX } from "../../../core/session/compaction-summary.ts";
import { branchEntries, buildSessionContext, loadSession } from "../../../core/session/loader.ts";
import { MAX_PERSIST_CHARS } from "../../../core/session/persist.ts";
import { SessionWriter } from "../../../core/session/writer.ts";
import { OmpError } from "../../../core/errors/omp-error.ts";
import { scratchDir } from "../config/scratch.ts";
import { assistant, texts, user } from "./fixtures.ts";

function newWriter(extra: Partial<Parameters<typeof SessionWriter.create>[0]> = {}) {
  const root = scratchDir("omp-session-");
  const cwd = join(root, "project");
  return SessionWriter.create({ cwd, sessionDir: join(root, "sessions"), ...extra });
}

/** A session of three turns: u1 a1 u2 a2 u3 a3. */
function threeTurns(writer: SessionWriter) {
  return ["one", "two", "three"].flatMap((n) => [writer.append({ type: "message", message: user(`u-${n}`) }), writer.append({ type: "message", message: assistant(`a-${n}`) })]);
}

describe("writer", () => {
  test("creates nothing until the first entry, then the file 0600 in a 0700 dir with the header first", () => {
    const writer = newWriter({ title: "my title" });
    expect(existsSync(dirname(writer.path))).toBe(false);
    writer.append({ type: "message", message: user("hello") });
    expect(statSync(writer.path).mode & 0o777).toBe(0o600);
    expect(statSync(dirname(writer.path)).mode & 0o777).toBe(0o700);
    const lines = readFileSync(writer.path, "utf8").split("\n");
    expect(lines).toHaveLength(3);
    expect(JSON.parse(lines[0]!)).toEqual({ ...writer.header, type: "session", version: 3, title: "my title" });
    expect(lines[1]).toStartWith('{"type":"message","id":');
    expect(lines[2]).toBe("");
    expect(writer.path).toMatch(/\/\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z_[0-9a-f]{16}\.jsonl$/);
    writer.close();
  });

  test("write/read round trip with ids, parents and every entry type", () => {
    const writer = newWriter();
    const u = writer.append({ type: "message", message: user("hi") });
    const m = writer.append({ type: "model_change", model: "openai/gpt-5" });
    const t = writer.append({ type: "thinking_level_change", thinkingLevel: "high" });
    const c = writer.append({ type: "custom", customType: "todo", data: { items: ["a"] } });
    const a = writer.append({ type: "message", message: assistant("hello") });
    writer.close();

    expect(u.parentId).toBeNull();
    expect([m.parentId, t.parentId, c.parentId, a.parentId]).toEqual([u.id, m.id, t.id, c.id]);
    expect(u.id).toMatch(/^[0-9a-f]{8}$/);

    const loaded = loadSession(writer.path);
    expect(loaded.problems).toEqual([]);
    expect(loaded.header).toEqual(writer.header);
    expect(loaded.entries).toEqual([u, m, t, c, a]);
    expect(loaded.leafId).toBe(a.id);
    const context = buildSessionContext(loaded);
    expect(texts(context.messages)).toEqual(["hi", "hello"]);
    expect(context.model).toBe("openai/gpt-5");
    expect(context.thinkingLevel).toBe("high");
  });

  test("without model changes the model comes from the last assistant message", () => {
    const writer = newWriter();
    threeTurns(writer);
    const context = buildSessionContext(loadSession(writer.path));
    expect(context.model).toBe("anthropic/claude-sonnet-4-5");
    expect(context.thinkingLevel).toBeUndefined();
  });

  test("strings over the limit are cut with a marker; the caller's objects are untouched", () => {
    const writer = newWriter();
    const big = "x".repeat(MAX_PERSIST_CHARS + 1234);
    const entry = writer.append({ type: "message", message: user(big) });
    expect((entry as { message: { content: string } }).message.content).toBe(big);
    const stored = loadSession(writer.path).entries[0] as { message: { content: string } };
    expect(stored.message.content.startsWith("x".repeat(MAX_PERSIST_CHARS))).toBe(true);
    expect(stored.message.content.slice(MAX_PERSIST_CHARS)).toBe("\n[omp: 1234 more characters were not saved in the session file]");
  });

  test("an entry that slipped past the types is skipped on load and reported; the entries around it survive", () => {
    const writer = newWriter();
    writer.append({ type: "message", message: user("before") });
    writer.append({ type: "thinking_level_change", thinkingLevel: "extreme" as never });
    writer.append({ type: "message", message: user("after") });
    const loaded = loadSession(writer.path);
    expect(loaded.entries.map((entry) => (entry.type === "message" ? entry.message.content : entry.type))).toEqual(["before", "after"]);
    expect(loaded.problems.map((problem) => problem.message).join("\n")).toContain("invalid thinking_level_change entry");
  });

  test("branching appends a child of an earlier entry; the loaded leaf is the last entry written", () => {
    const writer = newWriter();
    const [u1, a1, , a2] = threeTurns(writer).slice(0, 4);
    writer.branch(a1!.id);
    const alt = writer.append({ type: "message", message: user("u-alt") });
    const altReply = writer.append({ type: "message", message: assistant("a-alt") });
    expect(alt.parentId).toBe(a1!.id);
    expect(() => writer.branch("nope0000")).toThrow(OmpError);

    const loaded = loadSession(writer.path);
    expect(loaded.leafId).toBe(altReply.id);
    expect(texts(buildSessionContext(loaded).messages)).toEqual(["u-one", "a-one", "u-alt", "a-alt"]);
    // The abandoned branch is still there and can be rebuilt from its own leaf.
    expect(texts(buildSessionContext(loaded, a2!.id).messages)).toEqual(["u-one", "a-one", "u-two", "a-two"]);
    expect(branchEntries(loaded, u1!.id).map((e) => e.id)).toEqual([u1!.id]);
    expect(buildSessionContext(loaded, null).messages).toEqual([]);
  });
});

describe("loader tolerance", () => {
  test("a torn last line is skipped and everything before it kept", () => {
    const writer = newWriter();
    const entries = threeTurns(writer);
    writer.close();
    appendFileSync(writer.path, '{"type":"message","id":"deadbeef","parentId":"');
    const loaded = loadSession(writer.path);
    expect(loaded.entries).toEqual(entries);
    expect(loaded.leafId).toBe(entries.at(-1)!.id);
    expect(loaded.problems).toEqual([{ line: 8, message: "incomplete last line (omp stopped while writing it); skipped" }]);
  });

  test("resuming after a torn line cuts it off, so the next entry is not glued to it", () => {
    const writer = newWriter();
    threeTurns(writer);
    writer.close();
    appendFileSync(writer.path, '{"type":"message","id":"dead');
    const resumed = SessionWriter.resume(loadSession(writer.path));
    const next = resumed.append({ type: "message", message: user("u-four") });
    resumed.close();
    const loaded = loadSession(writer.path);
    expect(loaded.problems).toEqual([]);
    expect(loaded.entries).toHaveLength(7);
    expect(loaded.leafId).toBe(next.id);
    expect(texts(buildSessionContext(loaded).messages).at(-1)).toBe("u-four");
  });

  test("a complete last line that only lacks its newline is kept, and resuming adds the newline", () => {
    const writer = newWriter();
    const entries = threeTurns(writer);
    writer.close();
    writeFileSync(writer.path, readFileSync(writer.path, "utf8").replace(/\n$/, ""));
    expect(loadSession(writer.path).entries).toEqual(entries);
    const resumed = SessionWriter.resume(loadSession(writer.path));
    resumed.append({ type: "message", message: user("u-four") });
    resumed.close();
    expect(loadSession(writer.path).entries).toHaveLength(7);
  });

  test("malformed lines in the middle are skipped and reported; the chain is repaired", () => {
    const writer = newWriter();
    const entries = threeTurns(writer);
    writer.close();
    const lines = readFileSync(writer.path, "utf8").split("\n");
    // Line 4 (u-two) becomes garbage, line 6 (u-three) loses a required field, and a stray object is added.
    lines[3] = "{not json";
    lines[5] = lines[5]!.replace('"role":"user"', '"role":"robot"');
    lines.splice(2, 0, '{"hello":"world"}');
    writeFileSync(writer.path, lines.join("\n"));

    const loaded = loadSession(writer.path);
    expect(loaded.problems.map((p) => p.line)).toEqual([3, 5, 6, 7, 8]);
    expect(loaded.problems[0]!.message).toBe("not a session entry (no type, id or parentId); skipped");
    expect(loaded.problems[1]!.message).toBe("not valid JSON; skipped");
    expect(loaded.problems[2]!.message).toStartWith(`parent ${entries[2]!.id} of entry ${entries[3]!.id} is missing; attached to ${entries[1]!.id}`);
    expect(loaded.problems[3]!.message).toStartWith("invalid message entry at message");
    expect(loaded.problems[4]!.message).toStartWith(`parent ${entries[4]!.id} of entry ${entries[5]!.id} is missing; attached to ${entries[3]!.id}`);
    expect(loaded.entries.map((e) => e.id)).toEqual([entries[0], entries[1], entries[3], entries[5]].map((e) => e!.id));
    // a-three's parent (u-three) was skipped too, so it hangs from a-two: the rest of the conversation survives.
    expect(texts(buildSessionContext(loaded).messages)).toEqual(["u-one", "a-one", "a-two", "a-three"]);
  });

  test("entries of unknown types from a newer omp are kept as links but not used", () => {
    const writer = newWriter();
    const [u1, a1] = threeTurns(writer);
    writer.close();
    const lines = readFileSync(writer.path, "utf8").split("\n");
    const next = JSON.parse(lines[3]!);
    // (label was the example here until omp wrote label entries itself: ttsr_injection is one of the original's it does not.)
    lines.splice(3, 0, JSON.stringify({ type: "ttsr_injection", id: "1abe1000", parentId: a1!.id, timestamp: "x", injectedRules: ["a"] }));
    lines[4] = JSON.stringify({ ...next, parentId: "1abe1000" });
    writeFileSync(writer.path, lines.join("\n"));
    const loaded = loadSession(writer.path);
    expect(loaded.problems).toEqual([]);
    expect(texts(buildSessionContext(loaded).messages)).toEqual(["u-one", "a-one", "u-two", "a-two", "u-three", "a-three"]);
    expect(loaded.entries[0]).toEqual(u1!);
  });

  test("a file without a session header, a missing file and a newer format are errors", () => {
    const dir = scratchDir("omp-session-");
    const notSession = join(dir, "x.jsonl");
    writeFileSync(notSession, '{"type":"message"}\n');
    expect(() => loadSession(notSession)).toThrow("is not an omp session file");
    expect(() => loadSession(join(dir, "missing.jsonl"))).toThrow("no session file at");
    const newer = join(dir, "newer.jsonl");
    writeFileSync(newer, '{"type":"session","version":4,"id":"a","timestamp":"t","cwd":"/"}\n');
    expect(() => loadSession(newer)).toThrow("written by a newer omp (session format 4)");
  });
});

describe("compaction on load", () => {
  test("the latest compaction's summary comes first, then the kept entries, then what followed", () => {
    const writer = newWriter();
    const [, , u2] = threeTurns(writer);
    writer.append({ type: "compaction", summary: "first summary", firstKeptEntryId: u2!.id, tokensBefore: 1000 });
    writer.append({ type: "message", message: user("u-four") });
    const a4 = writer.append({ type: "message", message: assistant("a-four") });
    const compaction = writer.append({ type: "compaction", summary: "second summary", firstKeptEntryId: a4.id, tokensBefore: 2000 });
    writer.append({ type: "message", message: user("u-five") });
    writer.close();

    const context = buildSessionContext(loadSession(writer.path));
    expect(context.compaction?.id).toBe(compaction.id);
    expect(texts(context.messages)).toEqual([`${COMPACTION_SUMMARY_PREFIX}\n\n<summary>\nsecond summary\n</summary>`, "a-four", "u-five"]);
    expect(context.messages[0]!.role).toBe("user");
  });

  test("a compaction on another branch does not apply", () => {
    const writer = newWriter();
    const [u1, a1, u2] = threeTurns(writer);
    writer.append({ type: "compaction", summary: "s", firstKeptEntryId: u2!.id, tokensBefore: 1 });
    writer.branch(a1!.id);
    writer.append({ type: "message", message: user("u-side") });
    writer.close();
    const context = buildSessionContext(loadSession(writer.path));
    expect(context.compaction).toBeUndefined();
    expect(texts(context.messages)).toEqual(["u-one", "a-one", "u-side"]);
    expect(u1!.parentId).toBeNull();
  });

  test("a first kept entry that is not on the branch keeps only the summary and what follows", () => {
    const writer = newWriter();
    threeTurns(writer);
    writer.append({ type: "compaction", summary: "s", firstKeptEntryId: "00000000", tokensBefore: 1 });
    writer.append({ type: "message", message: user("after") });
    writer.close();
    expect(texts(buildSessionContext(loadSession(writer.path)).messages)).toEqual([`${COMPACTION_SUMMARY_PREFIX}\n\n<summary>\ns\n</summary>`, "after"]);
  });
});

describe("resume", () => {
  test("appends below the loaded leaf and never recreates a file that vanished", () => {
    const writer = newWriter();
    const [, , , , , a3] = threeTurns(writer);
    writer.close();
    const resumed = SessionWriter.resume(loadSession(writer.path));
    expect(resumed.leafId).toBe(a3!.id);
    const next = resumed.append({ type: "message", message: user("u-four") });
    expect(next.parentId).toBe(a3!.id);
    resumed.close();

    const again = SessionWriter.resume(loadSession(writer.path));
    rmSync(writer.path);
    expect(() => again.append({ type: "message", message: user("lost") })).toThrow("cannot write the session file");
    expect(existsSync(writer.path)).toBe(false);
    // The failure is latched: later appends fail the same way instead of writing a gap.
    expect(() => again.append({ type: "message", message: user("later") })).toThrow("cannot write the session file");
  });
});
