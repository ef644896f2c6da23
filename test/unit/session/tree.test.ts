import { describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { searchSessions } from "../../../core/session/listing.ts";
import { loadSession } from "../../../core/session/loader.ts";
import { countBranches, labelsOf, treeNodes, turnTree } from "../../../core/session/tree.ts";
import { SessionWriter } from "../../../core/session/writer.ts";
import { TreePanel } from "../../../cli/interactive/widgets/tree-panel.ts";
import { Theme } from "../../../cli/interactive/render/theme.ts";
import { writeLongSession } from "../../support/long-session.ts";
import { scratchDir } from "../config/scratch.ts";
import { assistant, user } from "./fixtures.ts";

const key = (name: string, text?: string) => ({ name, ctrl: false, alt: false, shift: false, ...(text === undefined ? {} : { text }) });
const theme = new Theme("dark", "none");

describe("the session tree", () => {
  test("a 1,000-turn session with side branches: every turn once, the current one marked, folding hides a branch", () => {
    const root = scratchDir("omp-tree-");
    const long = writeLongSession({ sessionDir: root, cwd: root, turns: 1000, branchEvery: 100 });
    const loaded = loadSession(long.path);
    const tree = turnTree(loaded, loaded.leafId);
    expect(tree.byId.size).toBe(long.turns);
    expect(tree.roots).toHaveLength(1);
    expect(tree.current?.text).toStartWith("turn 1000:");
    expect([...tree.byId.values()].filter((turn) => turn.onPath)).toHaveLength(1000);
    const hundred = [...tree.byId.values()].find((turn) => turn.text.startsWith("turn 100:"))!;
    expect(hundred.children.map((child) => child.text.slice(0, 8))).toEqual(["side 100", "turn 101"]);
    // Going to a turn puts the leaf after its answer, on the current path where it branched.
    expect(loaded.entries.find((entry) => entry.id === hundred.endId)).toMatchObject({ message: { role: "assistant" } });
    expect(countBranches(loaded.parents, new Set(loaded.entries.filter((e) => e.type === "message").map((e) => e.id)))).toBe(1 + long.sideBranches);

    const panel = new TreePanel(tree, "go", new Set(), { pick: () => {}, label: () => {}, changed: () => {} });
    expect(panel.rowCount).toBe(long.turns);
    const screen = panel.render(100, 20, theme).map((row) => Bun.stripANSI(row));
    // Opens at the current turn, at the bottom.
    expect(screen.find((row) => row.startsWith("● "))).toContain("turn 1000:");
    expect(screen.at(-1)).toContain(`${long.turns} turns`);
    // Fold turn 100's branches: everything below it goes.
    panel.handleKey(key("home"));
    for (let i = 0; i < 99; i++) panel.handleKey(key("down"));
    expect(panel.render(100, 5, theme).map((row) => Bun.stripANSI(row)).join("\n")).toMatch(/turn 100:.*\(2 branches\)/);
    panel.handleKey(key("left"));
    expect(panel.rowCount).toBe(100);
    expect(panel.render(100, 5, theme).map((row) => Bun.stripANSI(row)).join("\n")).toMatch(/turn 100:.*▸ 909 more/);
    panel.handleKey(key("right"));
    expect(panel.rowCount).toBe(long.turns);
  });

  test("labels: the latest entry per target wins, an empty one clears; get_tree's nodes carry them", () => {
    const root = scratchDir("omp-tree-");
    const writer = SessionWriter.create({ cwd: root, sessionDir: root });
    const first = writer.append({ type: "message", message: user("first") });
    writer.append({ type: "message", message: assistant("one") });
    writer.append({ type: "label", targetId: first.id, label: "start" });
    writer.append({ type: "label", targetId: first.id, label: "renamed" });
    const second = writer.append({ type: "message", message: user("second") });
    writer.append({ type: "label", targetId: second.id, label: "x" });
    writer.append({ type: "label", targetId: second.id });
    writer.close();
    const loaded = loadSession(writer.path);
    expect(loaded.problems).toEqual([]);
    expect([...labelsOf(loaded.entries)]).toEqual([[first.id, "renamed"]]);
    const nodes = treeNodes(loaded);
    expect(nodes.find((n) => n.id === first.id)).toMatchObject({ role: "user", text: "first", label: "renamed" });
    expect(nodes.find((n) => n.id === second.id)?.label).toBeUndefined();
    expect(turnTree(loaded, loaded.leafId).byId.get(first.id)?.label).toBe("renamed");
  });
});

describe("/resume search", () => {
  function sessionWith(dir: string, prompts: string[], name?: string) {
    const writer = SessionWriter.create({ cwd: dir, sessionDir: dir });
    for (const prompt of prompts) {
      writer.append({ type: "message", message: user(prompt) });
      writer.append({ type: "message", message: assistant("ok") });
    }
    if (name) writer.append({ type: "custom", customType: "omp.session_name", data: { name } });
    writer.close();
    return writer.path;
  }

  test("finds sessions by any user message, loosely, best first; reads a bounded head of each file", () => {
    const dir = join(scratchDir("omp-search-"), "sessions");
    mkdirSync(dir);
    const parser = sessionWith(dir, ["hello", "refactor the parser module so it streams"]);
    const docs = sessionWith(dir, ["write the docs for the CLI"], "docs day");
    const both = sessionWith(dir, ["the parser docs"]);
    expect(searchSessions(dir, "parser streams").map((m) => m.info.path)).toEqual([parser]);
    // A typo and letters in order still find it.
    expect(searchSessions(dir, "parsr")[0]!.info.path).toBeOneOf([parser, both]);
    expect(searchSessions(dir, "refactr streams").map((m) => m.info.path)).toEqual([parser]);
    expect(searchSessions(dir, "refactr streams")[0]!.snippet).toBe("refactor the parser module so it streams");
    expect(searchSessions(dir, "docs day").map((m) => m.info.path)).toEqual([docs]);
    expect(searchSessions(dir, "docs").map((m) => m.info.path).sort()).toEqual([docs, both].sort());
    expect(searchSessions(dir, "kubernetes")).toEqual([]);
    // Past the bytes read, a message is not searched.
    expect(searchSessions(dir, "streams", { maxBytes: 400 })).toEqual([]);
  });
});
