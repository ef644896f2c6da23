import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { execSync } from "node:child_process";
import { join } from "node:path";
import { changedParts, ensurePinned, partChanged, pinParts } from "../../../core/trust/content-pins.ts";
import { forgetFolderTrust, readTrustStore, setFolderTrust } from "../../../core/trust/folder-trust.ts";
import { MAX_PIN_TEXT } from "../../../core/trust/pinned-parts.ts";
import { tempDir } from "../../support/temp.ts";

const savedHome = process.env.HOME;
let home: string;
let env: NodeJS.ProcessEnv;
let repo: string;

function write(path: string, text: string): string {
  const file = join(repo, path);
  mkdirSync(join(file, ".."), { recursive: true });
  writeFileSync(file, text);
  return file;
}

beforeEach(() => {
  home = tempDir("omp-pins-home-");
  process.env.HOME = home;
  env = { HOME: home };
  repo = join(home, "code", "repo");
  mkdirSync(repo, { recursive: true });
});
afterEach(() => {
  process.env.HOME = savedHome;
});

describe("trust pinned to content", () => {
  test("harmless settings may change freely; hooks, allow rules and servers may not", () => {
    const config = write(".omp/config.yml", "model: a\nhooks:\n  Stop: []\n");
    const claude = write(".claude/settings.json", JSON.stringify({ model: "x", permissions: { deny: ["Bash(rm *)"], allow: ["Bash(ls)"] } }));
    setFolderTrust(repo, true, env);
    pinParts(repo, env);
    write(".omp/config.yml", "model: b\nthinking: high\nhooks:\n  Stop: []\n");
    write(".claude/settings.json", JSON.stringify({ model: "y", permissions: { deny: ["Bash(rm *)", "Read(.env)"], allow: ["Bash(ls)"] } }));
    expect(changedParts(repo, env)).toEqual([]);
    expect(partChanged(repo, config, env)).toBe(false);

    write(".claude/settings.json", JSON.stringify({ model: "y", permissions: { allow: ["Bash(*)"] } }));
    write(".mcp.json", JSON.stringify({ mcpServers: { new: { command: "x" } } }));
    const changes = changedParts(repo, env);
    expect(changes.map((change) => change.file)).toEqual([claude, join(repo, ".mcp.json")]);
    expect(changes[0]!.diff).toContain('-      "Bash(ls)"');
    expect(changes[0]!.diff).toContain('+      "Bash(*)"');
    expect(partChanged(repo, claude, env)).toBe(true);
    pinParts(repo, env);
    expect(changedParts(repo, env)).toEqual([]);
  });

  test("a part removed since is no change; a big one is pinned by hash and said to be too big to show", () => {
    const mcp = write(".mcp.json", "{}");
    setFolderTrust(repo, true, env);
    pinParts(repo, env);
    write(".mcp.json", JSON.stringify({ mcpServers: { a: { command: "x".repeat(MAX_PIN_TEXT) } } }));
    expect(changedParts(repo, env)[0]!.diff).toContain("too big to show");
    pinParts(repo, env);
    expect(readTrustStore(env).pins![repo]![mcp]!.text).toBeUndefined();
    rmSync(mcp);
    expect(changedParts(repo, env)).toEqual([]);
  });

  test("a folder trusted before pins is pinned at its first session; forgetting it forgets its pins", () => {
    write(".omp/extensions/tool.ts", "export default 1;\n");
    setFolderTrust(repo, true, env);
    expect(changedParts(repo, env)).toEqual([]);
    ensurePinned(repo, env);
    write(".omp/extensions/tool.ts", "export default 2;\n");
    expect(changedParts(repo, env).map((change) => change.file)).toEqual([join(repo, ".omp", "extensions")]);
    forgetFolderTrust(repo, env);
    expect(readTrustStore(env).pins![repo]).toBeUndefined();
    // Untrusted: nothing is "changed", it is simply not trusted.
    expect(changedParts(repo, env)).toEqual([]);
  });

  test("a file changed at the root is a change for a subfolder opened later too; a file added later is a change", () => {
    const claude = write(".claude/settings.json", JSON.stringify({ hooks: {} }));
    execSync("git init -q", { cwd: repo });
    setFolderTrust(repo, true, env);
    pinParts(repo, env);
    write(".claude/settings.json", JSON.stringify({ hooks: { Stop: [] } }));
    const sub = join(repo, "pkg");
    mkdirSync(sub);
    ensurePinned(sub, env);
    expect(changedParts(sub, env).map((change) => change.file)).toEqual([claude]);
    write(".omp/config.yml", "hooks:\n  Stop: []\n");
    expect(changedParts(repo, env).map((change) => change.file)).toEqual([join(repo, ".omp", "config.yml"), claude]);
  });

  test("extensions are pinned as the loader sees them: through linked folders, past the listed files, in node_modules; an unreadable part is a change", () => {
    const outside = join(home, "elsewhere");
    mkdirSync(outside, { recursive: true });
    writeFileSync(join(outside, "linked.ts"), "export default 1;\n");
    write(".omp/extensions/pkg/node_modules/dep/index.js", "module.exports = 1;\n");
    for (let i = 0; i < 520; i++) write(`.omp/extensions/many/m${String(i).padStart(3, "0")}.ts`, "export default 0;\n");
    execSync(`ln -s ${outside} ${join(repo, ".omp", "extensions", "link")}`);
    setFolderTrust(repo, true, env);
    pinParts(repo, env);
    expect(changedParts(repo, env)).toEqual([]);
    const extensions = join(repo, ".omp", "extensions");
    // A module behind a linked folder.
    writeFileSync(join(outside, "linked.ts"), "export default 2;\n");
    expect(changedParts(repo, env).map((change) => change.file)).toEqual([extensions]);
    pinParts(repo, env);
    // A file past the first 500 listed.
    write(".omp/extensions/many/m519.ts", "export default 'changed';\n");
    expect(changedParts(repo, env).map((change) => change.file)).toEqual([extensions]);
    pinParts(repo, env);
    // Inside node_modules.
    write(".omp/extensions/pkg/node_modules/dep/index.js", "module.exports = 'changed';\n");
    expect(changedParts(repo, env).map((change) => change.file)).toEqual([extensions]);
    pinParts(repo, env);
    // A link that loops is no reason to take the folder as unchanged.
    execSync(`ln -s ${extensions} ${join(extensions, "loop")}`);
    expect(changedParts(repo, env).map((change) => change.file)).toEqual([extensions]);
  });
});
