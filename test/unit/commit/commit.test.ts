import { describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { addChangelogEntries } from "../../../core/commit/changelog.ts";
import { parseCommitReply } from "../../../core/commit/message.ts";
import { DIFF_BUDGET_CHARS, stagedChanges } from "../../../core/commit/staged.ts";

describe("changelog entries", () => {
  test("a changelog without an Unreleased section gets one before the first release, in Keep a Changelog's order", () => {
    const text = "# Changelog\r\n\r\nAll notable changes.\r\n\r\n## [1.0.0]\r\n\r\n### Added\r\n\r\n- First\r\n";
    expect(addChangelogEntries(text, { Fixed: ["A crash"], Added: ["A flag"] })).toBe(
      "# Changelog\r\n\r\nAll notable changes.\r\n\r\n## [Unreleased]\r\n\r\n### Added\r\n\r\n- A flag\r\n\r\n### Fixed\r\n\r\n- A crash\r\n\r\n## [1.0.0]\r\n\r\n### Added\r\n\r\n- First\r\n",
    );
  });

  test("bullets join an existing category after its last entry; empty entries change nothing", () => {
    const text = "# Changelog\n\n## Unreleased\n\n### Added\n\n- One\n- Two\n";
    expect(addChangelogEntries(text, { Added: ["- Three"] })).toBe("# Changelog\n\n## Unreleased\n\n### Added\n\n- One\n- Two\n- Three\n");
    expect(addChangelogEntries(text, { Added: ["  "] })).toBe(text);
  });
});

describe("the model's reply", () => {
  const changelogs = new Map([["CHANGELOG.md", ["a.ts"]]]);
  test("fenced JSON; unknown changelogs and categories dropped; categories matched without case", () => {
    const proposal = parseCommitReply('```json\n{"subject":"fix: x.","changelog":{"CHANGELOG.md":{"fixed":["X"],"Misc":["Y"]},"other.md":{"Added":["Z"]}}}\n```', changelogs);
    expect(proposal.subject).toBe("fix: x");
    expect([...proposal.changelog]).toEqual([["CHANGELOG.md", { Fixed: ["X"] }]]);
  });
  test("plain text: the first line is the subject, a long one cut at a word", () => {
    const proposal = parseCommitReply(`"${"word ".repeat(30)}"\n\nThe body.`, changelogs);
    expect(proposal.subject.length).toBeLessThanOrEqual(72);
    expect(proposal.subject.endsWith("word")).toBe(true);
    expect(proposal.body).toBe("The body.");
  });
});

describe("the staged diff", () => {
  test("stays within the budget: a huge file is cut and says how much was left out, a small one is whole", () => {
    const repo = mkdtempSync(join(tmpdir(), "omp-commit-unit-"));
    const run = (...args: string[]) => Bun.spawnSync(["git", ...args], { cwd: repo, env: { PATH: process.env.PATH, HOME: repo, GIT_CONFIG_NOSYSTEM: "1" } });
    run("init", "-q");
    writeFileSync(join(repo, "big.txt"), "line of text\n".repeat(50_000));
    writeFileSync(join(repo, "small.txt"), "hello\n");
    run("add", "-A");
    const changes = stagedChanges(repo, { hasHead: false });
    const big = changes.files.find((file) => file.path === "big.txt")!;
    const small = changes.files.find((file) => file.path === "small.txt")!;
    expect(big.added).toBe(50_000);
    expect(big.omitted).toBeGreaterThan(500_000);
    expect(small.diff).toContain("+hello");
    expect(changes.files.reduce((sum, file) => sum + (file.diff?.length ?? 0), 0)).toBeLessThanOrEqual(DIFF_BUDGET_CHARS);
  });
});
