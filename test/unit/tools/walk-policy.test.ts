// grep and find over a home never walk into the deny-list's trees: pruned in the native walk
// (fewer files searched), not only filtered from the results. Runs against the real native addon.
import { afterEach, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PathPolicy } from "../../../core/sandbox/path-policy.ts";
import { buildPolicy } from "../../../core/sandbox/policy.ts";
import { findTool } from "../../../core/tools/find.ts";
import { type GrepDetails, grepTool } from "../../../core/tools/grep.ts";
import { context, scratch, textOf } from "./helpers.ts";

const startCwd = process.cwd();
afterEach(() => process.chdir(startCwd));

function home() {
  const root = scratch();
  const dir = join(root, "home [1]");
  const put = (path: string, content: string) => {
    mkdirSync(join(dir, path, ".."), { recursive: true });
    writeFileSync(join(dir, path), content);
  };
  put(".ssh/id_rsa", "SECRET key\n");
  put(".ssh/config", "SECRET host\n");
  put(".omp/agent/agent.db-wal", "SECRET vault\n");
  put("notes/a.txt", "SECRET is a word\n");
  put("notes/.ssh/readme", "a project's own .ssh dir\n");
  const settings = { mode: "workspace-write" as const, network: "off" as const, writable: [], denyRead: [], envAllow: [], allowSockets: [] };
  const paths = new PathPolicy(buildPolicy({ settings, cwd: join(dir, "notes"), addDirs: [], home: dir, env: {} }), join(dir, "notes"));
  return { root, dir, paths };
}

describe("the walk prunes the deny-list", () => {
  for (const where of ["elsewhere", "the home itself"] as const) {
    test(`grep over the home from a working directory ${where}: the denied files are not even searched`, async () => {
      const { root, dir, paths } = home();
      process.chdir(where === "elsewhere" ? root : dir);
      const input = { pattern: "SECRET", path: dir, outputMode: "files" as const };
      const open = await grepTool.execute(input, context(dir));
      const guarded = await grepTool.execute(input, context(dir, { paths }));
      expect(textOf(open)).toContain("id_rsa");
      expect(textOf(guarded)).toBe("notes/a.txt");
      expect((open.details as GrepDetails).filesSearched - (guarded.details as GrepDetails).filesSearched).toBe(3);
    });
  }

  test("find over the home lists nothing of the denied trees", async () => {
    const { dir, paths } = home();
    const listed = textOf(await findTool.execute({ pattern: "*" }, context(dir, { paths })));
    expect(listed).toContain("notes/a.txt");
    expect(listed).not.toContain("id_rsa");
    expect(listed).not.toContain("agent.db");
  });
});
