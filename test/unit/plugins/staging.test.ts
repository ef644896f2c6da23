// What a plugin command killed at any moment leaves behind, and how the next one cleans it up.
import { afterEach, beforeEach, expect, test } from "bun:test";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { cleanStaging } from "../../../core/plugins/staging.ts";
import { writeTree } from "../../support/fixture-tree.ts";
import { tempDir } from "../../support/temp.ts";

const savedHome = process.env.HOME;
let plugins: string;
beforeEach(() => {
  process.env.HOME = tempDir("omp-staging-home-");
  plugins = join(process.env.HOME, ".omp", "plugins");
});
afterEach(() => {
  process.env.HOME = savedHome;
});

function deadPid(): number {
  const child = Bun.spawnSync(["true"]);
  return child.pid;
}

test("a dead run's staging dir goes, a live one's stays; a swap killed between its renames is undone", () => {
  const dead = deadPid();
  writeTree(plugins, {
    [`cache/.staging/${dead}-abc/pkg/package.json`]: "{}",
    [`cache/.staging/${process.pid}-def/pkg/package.json`]: "{}",
    // Killed after moving the old copy aside and before the new one arrived: the old one comes back.
    [`node_modules/left-pad.old-${dead}/index.js`]: "old",
    [`node_modules/@s/kit.old-${dead}/index.js`]: "old scoped",
    // Killed after the new one arrived: the old one is just removed.
    [`node_modules/done.old-${dead}/index.js`]: "old",
    "node_modules/done/index.js": "new",
    [`cache/plugins/m___p___1.old-${dead}/x`]: "old",
  });
  cleanStaging();
  expect(readdirSync(join(plugins, "cache", ".staging"))).toEqual([`${process.pid}-def`]);
  expect(readFileSync(join(plugins, "node_modules", "left-pad", "index.js"), "utf8")).toBe("old");
  expect(readFileSync(join(plugins, "node_modules", "@s", "kit", "index.js"), "utf8")).toBe("old scoped");
  expect(readFileSync(join(plugins, "node_modules", "done", "index.js"), "utf8")).toBe("new");
  expect(existsSync(join(plugins, "node_modules", `done.old-${dead}`))).toBe(false);
  expect(existsSync(join(plugins, "cache", "plugins", "m___p___1"))).toBe(true);
});
