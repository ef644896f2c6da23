// enabledPlugins(cwd): what the loaders get. Scopes and shadowing, disabled plugins, paths a
// project file cannot point elsewhere, trust for project installs, component paths from Claude's
// layout, plugin.json arrays and the omp manifest's features.
import { afterEach, beforeEach, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { enabledPlugins } from "../../../core/plugins/enabled.ts";
import { setFolderTrust } from "../../../core/trust/folder-trust.ts";
import { writeTree } from "../../support/fixture-tree.ts";
import { tempDir } from "../../support/temp.ts";

const saved = { HOME: process.env.HOME, OMP_AGENT_DIR: process.env.OMP_AGENT_DIR };
let home: string;
let repo: string;
const cache = (name: string) => join(home, ".omp", "plugins", "cache", "plugins", name);

beforeEach(() => {
  home = tempDir("omp-plugins-home-");
  repo = tempDir("omp-plugins-repo-");
  mkdirSync(join(repo, ".git"));
  process.env.HOME = home;
  delete process.env.OMP_AGENT_DIR;
});
afterEach(() => {
  process.env.HOME = saved.HOME;
  if (saved.OMP_AGENT_DIR !== undefined) process.env.OMP_AGENT_DIR = saved.OMP_AGENT_DIR;
});

function installed(file: string, plugins: Record<string, object[]>) {
  mkdirSync(join(file, ".."), { recursive: true });
  writeFileSync(file, JSON.stringify({ version: 2, plugins }));
}
const record = (scope: string, installPath: string, enabled = true) => ({ scope, installPath, version: "1.0.0", installedAt: "", lastUpdated: "", enabled });

test("nothing installed: no plugins, and no files are created", () => {
  expect(enabledPlugins(repo)).toEqual([]);
});

test("user and project installs: an enabled project install shadows the user's, a disabled one does not; untrusted projects give text only", () => {
  writeTree(cache("m___a___1"), { "commands/a.md": "a", "hooks/hooks.json": "{}", ".mcp.json": "{}", "skills/s/SKILL.md": "s", "agents/x.md": "x" });
  writeTree(cache("m___a___2"), { "commands/a.md": "a2" });
  writeTree(cache("m___b___1"), { ".claude-plugin/plugin.json": JSON.stringify({ name: "b", commands: ["./extra/cmds", "./missing"], skills: "./my-skills", hooks: "../../../outside.json" }), "extra/cmds/x.md": "x", "my-skills/k/SKILL.md": "k" });
  installed(join(home, ".omp", "plugins", "installed_plugins.json"), {
    "a@m": [record("user", cache("m___a___1"))],
    "b@m": [record("user", cache("m___b___1"))],
    "off@m": [record("user", cache("m___a___1"), false)],
  });
  installed(join(repo, ".omp", "plugins", "installed_plugins.json"), {
    "a@m": [record("project", cache("m___a___2"))],
    "b@m": [record("project", cache("m___b___1"), false)],
    "evil@m": [record("project", "/etc")],
  });
  const plugins = enabledPlugins(join(repo));
  expect(plugins.map((p) => [p.id, p.scope, p.root, p.trusted])).toEqual([
    ["a@m", "project", cache("m___a___2"), false],
    ["b@m", "user", cache("m___b___1"), true],
  ]);
  const b = plugins[1]!;
  expect(b.name).toBe("b");
  expect(b.components.commands).toEqual([join(b.root, "extra", "cmds")]);
  expect(b.components.skills).toEqual([join(b.root, "my-skills")]);
  expect(b.components.hooks).toEqual([]);

  setFolderTrust(repo, true);
  expect(enabledPlugins(repo)[0]!.trusted).toBe(true);
  installed(join(repo, ".omp", "plugins", "installed_plugins.json"), {});
  const a = enabledPlugins(repo)[0]!;
  expect(a.root).toBe(cache("m___a___1"));
  expect(a.components).toEqual({
    commands: [join(a.root, "commands")],
    agents: [join(a.root, "agents")],
    skills: [join(a.root, "skills")],
    hooks: [join(a.root, "hooks", "hooks.json")],
    mcp: [join(a.root, ".mcp.json")],
    extensions: [],
    tools: [],
    hookModules: [],
  });
});

test("npm plugins: the omp manifest's extensions and the features in effect; disabled ones are left out", () => {
  const modules = join(home, ".omp", "plugins", "node_modules");
  writeTree(join(modules, "@s", "kit"), {
    "package.json": JSON.stringify({
      name: "@s/kit",
      version: "2.0.0",
      omp: { extensions: "./ext", features: { on: { default: true, tools: ["./tools/on.ts"] }, off: { tools: ["./tools/off.ts"] } } },
    }),
    "ext/index.ts": "export default () => {}",
    "tools/on.ts": "",
    "tools/off.ts": "",
    "skills/s/SKILL.md": "s",
  });
  writeTree(join(modules, "quiet"), { "package.json": JSON.stringify({ name: "quiet", pi: { extensions: ["./x.ts"] } }), "x.ts": "" });
  const lock = (features: string[] | null) =>
    writeFileSync(join(home, ".omp", "plugins", "omp-plugins.lock.json"), JSON.stringify({ plugins: { "@s/kit": { version: "2.0.0", enabledFeatures: features, enabled: true }, quiet: { version: "1", enabledFeatures: null, enabled: false } }, settings: {} }));
  lock(null);
  const [kit, ...rest] = enabledPlugins(repo);
  expect(rest).toEqual([]);
  expect(kit).toMatchObject({ id: "@s/kit", name: "kit", kind: "package", version: "2.0.0", trusted: true });
  expect(kit!.components.extensions).toEqual([join(kit!.root, "ext", "index.ts")]);
  expect(kit!.components.tools).toEqual([join(kit!.root, "tools", "on.ts")]);
  expect(kit!.components.skills).toEqual([join(kit!.root, "skills")]);
  lock(["off"]);
  expect(enabledPlugins(repo)[0]!.components.tools).toEqual([join(kit!.root, "tools", "off.ts")]);
});

test("a plugin the original omp's package.json alone declares is seen as soon as it is declared, though nothing else changed", () => {
  const root = join(home, ".omp", "plugins");
  writeTree(join(root, "node_modules", "@x", "p"), { "package.json": JSON.stringify({ name: "@x/p", version: "2.0.0" }), "commands/c.md": "c" });
  writeFileSync(join(root, "package.json"), JSON.stringify({ dependencies: {} }));
  expect(enabledPlugins(repo)).toEqual([]);
  writeFileSync(join(root, "package.json"), JSON.stringify({ dependencies: { "@x/p": "2.0.0" } }));
  expect(enabledPlugins(repo).map((p) => [p.id, p.kind, p.version])).toEqual([["@x/p", "package", "2.0.0"]]);
});
