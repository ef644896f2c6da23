// `omp plugin marketplace remove` with the compiled binary: the plugins the user installed from the
// marketplace go with it (records and cached folders), other marketplaces' plugins stay, and this
// project's settings that still enable one of its plugins are named, not edited.
import { expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { runOmp, tempDir } from "../support/omp.ts";
import { writeTree } from "../support/plugin-fixtures.ts";

function marketplace(dir: string, name: string, plugins: string[]) {
  return writeTree(dir, {
    ".claude-plugin/marketplace.json": JSON.stringify({ name, owner: { name: "t" }, plugins: plugins.map((plugin) => ({ name: plugin, source: `./${plugin}`, version: "1.0.0" })) }),
    ...Object.fromEntries(plugins.map((plugin) => [`${plugin}/commands/${plugin}.md`, `${plugin} command\n`])),
  });
}

test("remove uninstalls the user's plugins from it, keeps the rest, and names the project settings that still enable one", async () => {
  const home = tempDir("omp-home-");
  const work = tempDir("omp-work-");
  const omp = (args: string[]) => runOmp(["plugin", ...args], { home, cwd: work });
  expect((await omp(["marketplace", "add", marketplace(join(work, "team"), "team", ["alpha", "beta"])])).code).toBe(0);
  expect((await omp(["marketplace", "add", marketplace(join(work, "other"), "other", ["gamma"])])).code).toBe(0);
  for (const id of ["alpha@team", "beta@team", "gamma@other"]) expect((await omp(["install", id])).code).toBe(0);
  expect((await omp(["install", "beta@team", "--scope", "project"])).code).toBe(0);
  writeTree(work, { ".claude/settings.json": JSON.stringify({ enabledPlugins: { "alpha@team": true, "gamma@other": true, "beta@team": false } }) });
  const cache = join(home, ".omp", "plugins", "cache", "plugins");
  expect(existsSync(join(cache, "team___alpha___1.0.0"))).toBe(true);

  const removed = await omp(["marketplace", "remove", "team"]);
  expect(removed.code).toBe(0);
  const lines = removed.stdout.trim().split("\n");
  expect(lines[0]).toBe("Removed marketplace team and uninstalled its 2 plugins: alpha@team 1.0.0, beta@team 1.0.0.");
  expect(lines.slice(1).sort()).toEqual([
    `  still enabled by this project: alpha@team in ${join(work, ".claude", "settings.json")}`,
    `  still enabled by this project: beta@team in ${join(work, ".omp", "plugins", "installed_plugins.json")} (\`omp plugin uninstall beta@team --scope project\` removes it)`,
  ]);

  const user = JSON.parse(readFileSync(join(home, ".omp", "plugins", "installed_plugins.json"), "utf8"));
  expect(Object.keys(user.plugins)).toEqual(["gamma@other"]);
  expect(existsSync(join(cache, "team___alpha___1.0.0"))).toBe(false);
  // The project install still uses beta's cached folder, so it stays.
  expect(existsSync(join(cache, "team___beta___1.0.0"))).toBe(true);
  expect(existsSync(join(cache, "other___gamma___1.0.0"))).toBe(true);
  const listed = JSON.parse((await omp(["list", "--json"])).stdout).map((plugin: { id: string; scope: string }) => `${plugin.id} ${plugin.scope}`);
  expect(listed.sort()).toEqual(["beta@team project", "gamma@other user"]);
  expect(JSON.parse((await omp(["marketplace", "list", "--json"])).stdout).map((record: { name: string }) => record.name)).toEqual(["other"]);

  // A marketplace nothing came from, with --json; an unknown one is an error that says where to look.
  const json = JSON.parse((await omp(["marketplace", "remove", "other", "--json"])).stdout);
  expect(json.uninstalled).toEqual([{ id: "gamma@other", version: "1.0.0" }]);
  expect(json.projectEnabled).toEqual([{ id: "gamma@other", file: join(work, ".claude", "settings.json") }]);
  const again = await omp(["marketplace", "remove", "other"]);
  expect(again.code).toBe(1);
  expect(again.stderr).toContain("no marketplace named other");
  expect(Object.keys(JSON.parse(readFileSync(join(home, ".omp", "plugins", "installed_plugins.json"), "utf8")).plugins)).toEqual([]);
});
