import { describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { discoverRules } from "../../../core/rules/discover.ts";
import { bucketRules, rulesSection } from "../../../core/rules/rulebook.ts";
import { DEFAULT_TTSR_SETTINGS } from "../../../core/rules/ttsr.ts";

function tree(root: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
}

/** A project and a home apart; the project trusted (or not) in the home's trust store. */
function setup(trusted: boolean) {
  const base = realpathSync(mkdtempSync(join(tmpdir(), "omp-rules-")));
  const home = join(base, "home");
  const cwd = join(base, "project");
  const agent = join(home, ".omp", "agent");
  mkdirSync(agent, { recursive: true });
  mkdirSync(cwd, { recursive: true });
  writeFileSync(join(agent, "trusted-folders.json"), JSON.stringify({ version: 1, folders: { [cwd]: { trusted, at: new Date().toISOString() } } }));
  return { home, cwd, env: { OMP_AGENT_DIR: agent } as NodeJS.ProcessEnv };
}

describe("rule discovery", () => {
  test("every source, first name wins in the original's order, each rule in its bucket", () => {
    const { home, cwd, env } = setup(true);
    tree(cwd, {
      ".omp/rules/dup.md": "---\ncondition: a\n---\nproject wins",
      ".omp/rules/stream.mdc": "---\ncondition: 'x\\('\n---\nstream",
      ".claude/rules/lang/ts.md": "---\npaths: src/**/*.ts\n---\nstrict types",
      ".claude/rules/always.md": "be kind",
      ".cursor/rules/cursor.mdc": "---\ndescription: Cursor rule\nalwaysApply: false\n---\ncursor",
      ".windsurf/rules/wind.md": "---\nalwaysApply: true\n---\nwind",
      ".clinerules": "cline text",
    });
    tree(home, {
      ".omp/agent/rules/dup.md": "---\ncondition: b\n---\nuser loses",
      ".omp/agent/rules/mine.md": "---\ndescription: Mine\n---\nmine",
      ".codeium/windsurf/memories/global_rules.md": "---\ndescription: Global\n---\nglobal",
      ".claude/rules/nothing.md": "---\ndescription: x\n---\n",
    });
    const found = discoverRules(cwd, env, home);
    expect(found.rules.map((rule) => rule.name)).toEqual(["dup", "stream", "mine", "always", "lang/ts", "nothing", "cursor", "global_rules", "wind", "clinerules"]);
    expect(found.skipped).toEqual([{ path: join(home, ".omp/agent/rules/dup.md"), name: "dup", reason: `shadowed by ${join(cwd, ".omp/rules/dup.md")} (same name)` }]);
    const book = bucketRules(found, { ...DEFAULT_TTSR_SETTINGS, disabledRules: ["nothing"] });
    expect(book.stream.map((rule) => rule.name)).toEqual(["dup", "stream"]);
    expect(book.alwaysApply.map((rule) => rule.name)).toEqual(["always", "wind"]);
    expect(book.listed.map((rule) => rule.name)).toEqual(["mine", "lang/ts", "cursor", "global_rules"]);
    expect(book.skipped.map((skip) => [skip.name, skip.reason])).toContainEqual(["nothing", "listed in ttsr.disabledRules"]);
    expect(book.skipped.map((skip) => [skip.name, skip.reason])).toContainEqual(["clinerules", "no condition, no description and not alwaysApply: nothing would use it"]);
    expect(rulesSection(book)).toContain("- lang/ts: Rules for files matching src/**/*.ts (files: src/**/*.ts)");
  });

  test("an untrusted project's rule folders are skipped with why; the user's still load", () => {
    const { home, cwd, env } = setup(false);
    tree(cwd, { ".omp/rules/p.md": "---\ncondition: a\n---\np", ".claude/rules/c.md": "c", ".clinerules/x.md": "x" });
    tree(home, { ".omp/agent/rules/u.md": "---\ncondition: a\n---\nu" });
    const found = discoverRules(cwd, env, home);
    expect(found.rules.map((rule) => rule.name)).toEqual(["u"]);
    expect(found.skipped.map((skip) => skip.reason)).toEqual(Array(3).fill("the folder is not trusted (`omp trust` to load its rules)"));
  });
});
