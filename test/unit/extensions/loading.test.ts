// Where skills and commands are found and which one wins: the user's folders before the
// project's, the project's from cwd up to the repository root (nearest first), plugin sources
// with their namespace, and a session with none of them.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { Extensions } from "../../../core/extensions/extensions.ts";
import { tempDir } from "../../support/temp.ts";

function put(root: string, files: Record<string, string>): void {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
}

const skill = (name: string, description: string) => `---\nname: ${name}\ndescription: ${description}\n---\nbody of ${name}\n`;

let home: string;
let savedHome: string | undefined;
beforeEach(() => {
  home = tempDir("omp-ext-home-");
  savedHome = process.env.HOME;
  process.env.HOME = home;
});
afterEach(() => {
  process.env.HOME = savedHome;
});

describe("sources and precedence", () => {
  test("user before project; the project walked from cwd to the repository root, nearest first; .agents too", () => {
    const repo = tempDir("omp-ext-repo-");
    mkdirSync(join(repo, ".git"));
    put(home, { ".omp/agent/skills/shared/SKILL.md": skill("shared", "the user's") });
    put(repo, {
      ".claude/skills/shared/SKILL.md": skill("shared", "the project's"),
      ".agents/skills/top/SKILL.md": skill("top", "from the root's .agents"),
      "pkg/.omp/skills/top/SKILL.md": skill("top", "from pkg"),
      "pkg/.claude/commands/ns/deep/run.md": "---\ndescription: deep\n---\nrun it\n",
    });
    mkdirSync(join(repo, "pkg", "src"), { recursive: true });
    const extensions = new Extensions({ cwd: join(repo, "pkg", "src"), env: { HOME: home } });
    expect(extensions.sources.map((s) => [s.kind, s.root])).toEqual([
      ["user", join(home, ".omp", "agent")],
      ["project", join(repo, "pkg", ".omp")],
      ["project", join(repo, "pkg", ".claude")],
      ["project", join(repo, ".claude")],
      ["project", join(repo, ".agents")],
    ]);
    expect(extensions.skills.map((s) => [s.name, s.description])).toEqual([
      ["shared", "the user's"],
      ["top", "from pkg"],
    ]);
    expect(extensions.commands.map((c) => c.name)).toEqual(["ns:deep:run"]);
    const shadowed = extensions.listExtensions().filter((e) => e.status === "shadowed");
    expect(shadowed.map((e) => [e.name, e.path])).toEqual([
      ["shared", join(repo, ".claude", "skills", "shared", "SKILL.md")],
      ["top", join(repo, ".agents", "skills", "top", "SKILL.md")],
    ]);
  });

  test("outside a repository only cwd's folders are project folders; a plugin source namespaces its names", () => {
    const outer = tempDir("omp-ext-outer-");
    put(outer, { ".claude/commands/outer.md": "outer\n", "inner/.claude/commands/inner.md": "inner\n" });
    const plugin = tempDir("omp-ext-plugin-");
    put(plugin, { "commands/review.md": "---\ndescription: from the plugin\n---\nreview\n", "skills/lint/SKILL.md": skill("lint", "lints") });
    const extensions = new Extensions({ cwd: join(outer, "inner"), env: { HOME: home }, extra: [{ kind: "plugin", root: plugin, trusted: true, namespace: "tools", label: "plugin tools" }] });
    expect(extensions.commands.map((c) => [c.name, c.source.kind])).toEqual([
      ["inner", "project"],
      ["tools:review", "plugin"],
    ]);
    expect(extensions.skills.map((s) => s.name)).toEqual(["tools:lint"]);
  });

  test("trust: a project source is trusted only when its folder is", async () => {
    const repo = tempDir("omp-ext-repo-");
    mkdirSync(join(repo, ".git"));
    put(repo, { ".omp/commands/x.md": "x\n" });
    const env = { HOME: home, OMP_AGENT_DIR: join(home, ".omp", "agent") };
    const projectTrust = () => new Extensions({ cwd: repo, env }).sources.filter((s) => s.kind === "project").map((s) => s.trusted);
    expect(projectTrust()).toEqual([false]);
    const { setFolderTrust } = await import("../../../core/trust/folder-trust.ts");
    setFolderTrust(repo, true, env);
    expect(projectTrust()).toEqual([true]);
  });

  test("skill heads are cached by size and mtime: an edited SKILL.md is read again", () => {
    put(home, { ".omp/agent/skills/pdf/SKILL.md": skill("pdf", "first words") });
    const load = () => new Extensions({ cwd: tempDir("omp-ext-cwd-"), env: { HOME: home } }).skills.map((s) => s.description);
    expect(load()).toEqual(["first words"]);
    const cache = JSON.parse(readFileSync(join(home, ".omp", "agent", "cache", "skills.json"), "utf8"));
    expect(cache.entries[join(home, ".omp", "agent", "skills", "pdf", "SKILL.md")].head).toMatchObject({ name: "pdf", description: "first words" });
    expect(load()).toEqual(["first words"]);
    put(home, { ".omp/agent/skills/pdf/SKILL.md": skill("pdf", "edited, and longer") });
    expect(load()).toEqual(["edited, and longer"]);
  });

  test("nothing installed: no sources, nothing loaded, an empty listing", () => {
    const repo = tempDir("omp-ext-repo-");
    const extensions = new Extensions({ cwd: repo, env: { HOME: home } });
    expect(extensions.sources).toEqual([]);
    expect(extensions.skills).toEqual([]);
    expect(extensions.listExtensions()).toEqual([]);
  });
});
