// What the github tool and issue:// / pr:// take apart themselves: search date bounds, a unified
// diff per file, and the checkout's repository from its remotes in each form git allows.
import { describe, expect, test } from "bun:test";
import { dateBound } from "../../../core/tools/github.ts";
import { splitDiff } from "../../../core/github/views.ts";
import { currentRepo, parseRepo } from "../../../core/github/repo.ts";
import { tempDir } from "../../support/temp.ts";

describe("dateBound", () => {
  const now = new Date("2026-03-15T12:00:00Z");
  test.each([
    ["3d", "2026-03-12"],
    ["2w", "2026-03-01"],
    ["2mo", "2026-01-15"],
    ["1y", "2025-03-15"],
    ["12h", "2026-03-15T00:00:00Z"],
    ["2026-01-02", "2026-01-02"],
    ["2026-01-02T03:04:05Z", "2026-01-02T03:04:05Z"],
  ])("%s → %s", (given, expected) => {
    expect(dateBound(given, "since", now)).toBe(expected);
  });
  test("anything else says the forms", () => {
    expect(() => dateBound("last week", "until", now)).toThrow('until "last week" is not a date: use 3d, 12h, 2w, 2mo, 1y, YYYY-MM-DD or an ISO datetime.');
  });
});

test("splitDiff: one entry per file with its added and removed lines (file headers not counted, a removed '-- …' line is)", () => {
  const diff = "diff --git a/x.ts b/x.ts\n--- a/x.ts\n+++ b/x.ts\n@@ -1 +1 @@\n-old\n+new\n+more\ndiff --git a/gone.md b/gone.md\ndeleted file mode 100644\n--- a/gone.md\n+++ /dev/null\n@@ -1 +0,0 @@\n--- a line that was a rule\n";
  expect(splitDiff(diff).map(({ path, added, removed }) => ({ path, added, removed }))).toEqual([
    { path: "x.ts", added: 2, removed: 1 },
    { path: "gone.md", added: 0, removed: 1 },
  ]);
  expect(splitDiff("")).toEqual([]);
});

describe("repositories", () => {
  test("parseRepo takes owner/repo and refuses anything else", () => {
    expect(parseRepo("acme/widgets.git")).toEqual({ owner: "acme", repo: "widgets" });
    for (const bad of ["acme", "acme/widgets/x", "../x", "a b/c"]) expect(() => parseRepo(bad)).toThrow("is not a repository: give owner/repo");
  });

  test.each([
    ["https://github.com/acme/widgets.git", "github.com", { owner: "acme", repo: "widgets" }],
    ["git@github.com:acme/widgets.git", "github.com", { owner: "acme", repo: "widgets" }],
    ["ssh://git@github.com/acme/widgets", "github.com", { owner: "acme", repo: "widgets" }],
    ["https://ghe.corp.example/team/tool.git", "ghe.corp.example", { owner: "team", repo: "tool" }],
    ["https://gitlab.com/acme/widgets.git", "github.com", undefined],
  ])("%s on %s", (url, host, expected) => {
    const repo = tempDir("omp-gh-repo-");
    Bun.spawnSync(["git", "init", "-q", repo]);
    Bun.spawnSync(["git", "remote", "add", "origin", url], { cwd: repo });
    expect(currentRepo(repo, host)).toEqual(expected);
  });
});
