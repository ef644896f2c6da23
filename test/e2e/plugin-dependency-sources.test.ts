// Dependencies a plugin's package.json declares outside the registry, with the compiled binary and
// no npm or bun on PATH: file: paths (a folder inside the plugin, a sibling in its repository, a
// .tgz, nested file: deps; escapes refused), tarball URLs from a loopback server (integrity from
// package-lock.json checked, a traversal entry refused), and git (git+file:// on a branch and pinned
// by the lockfile, github:owner/repo#tag through a git daemon), each pinned in the lockfile.
import { afterAll, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runOmp, tempDir } from "../support/omp.ts";
import { commit, npmTarball, startGitDaemon, writeTree } from "../support/plugin-fixtures.ts";

const PATH = "/usr/bin:/bin";
const pkg = (name: string, version: string, extra: Record<string, unknown> = {}) => JSON.stringify({ name, version, ...extra });
const sri = (bytes: Uint8Array) => `sha512-${new Bun.CryptoHasher("sha512").update(bytes).digest("base64")}`;

const gitBase = tempDir("omp-git-");
const daemon = await startGitDaemon(gitBase);
const good = await npmTarball({ name: "tar-helper", version: "3.0.0", files: { "index.js": "module.exports = 'tar';\n" } });
const evilDir = tempDir("omp-evil-");
writeTree(evilDir, { "package/package.json": pkg("evil", "1.0.0"), "evil.txt": "escaped" });
const evilFile = join(evilDir, "evil.tgz");
await (await import("tar")).c({ gzip: true, file: evilFile, cwd: join(evilDir, "package"), preservePaths: true }, ["package.json", "../evil.txt"]);
const served = new Map<string, Uint8Array>([["/tar-helper.tgz", good], ["/evil.tgz", new Uint8Array(readFileSync(evilFile))]]);
const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (request) => {
  const body = served.get(new URL(request.url).pathname);
  return body ? new Response(body) : new Response("no", { status: 404 });
} });
const http = `http://127.0.0.1:${server.port}`;
afterAll(() => {
  server.stop(true);
  daemon.close();
});

function setup() {
  const home = tempDir("omp-home-");
  const work = tempDir("omp-work-");
  const omp = (args: string[]) => runOmp(["plugin", ...args], { home, cwd: work, env: { PATH, OMP_GITHUB_URL: daemon.url } });
  const modules = join(home, ".omp", "plugins", "node_modules");
  const lock = () => JSON.parse(readFileSync(join(home, ".omp", "plugins", "omp-plugins.lock.json"), "utf8"));
  return { home, work, omp, modules, lock };
}

test("file: dependencies inside the plugin, beside it in its repository and as a .tgz; nested ones resolve from their own folder; escapes refused", async () => {
  const { work, omp, modules, lock } = setup();
  const mono = join(work, "mono");
  writeTree(mono, {
    "plugins/demo/package.json": pkg("demo-plugin", "1.0.0", {
      dependencies: { vendored: "file:./vendor/vendored", shared: "file:../../shared", packed: "file:./packed.tgz" },
      omp: { commands: ["./commands"] },
    }),
    "plugins/demo/commands/hi.md": "Hi\n",
    "plugins/demo/vendor/vendored/package.json": pkg("vendored", "0.0.1"),
    "shared/package.json": pkg("shared", "0.2.0", { dependencies: { deep: "file:../deep" } }),
    "shared/index.js": "module.exports = 'shared';\n",
    "deep/package.json": pkg("deep", "0.3.0"),
    "plugins/sneaky/package.json": pkg("sneaky-plugin", "1.0.0", { dependencies: { outside: "file:../../../outside" } }),
  });
  writeFileSync(join(mono, "plugins", "demo", "packed.tgz"), await npmTarball({ name: "packed", version: "4.0.0", files: { "index.js": "1" } }));
  writeTree(work, { "outside/package.json": pkg("outside", "9.9.9") });
  commit(mono, {});

  const result = await omp(["install", join(mono, "plugins", "demo")]);
  expect(result.stderr).toBe("");
  expect(result.code).toBe(0);
  expect(result.stdout).toContain("dependencies: 4 packages");
  expect(result.stdout).toContain(`shared from file:${join(mono, "shared")}`);
  const root = join(modules, "demo-plugin", "node_modules");
  expect(JSON.parse(readFileSync(join(root, "vendored", "package.json"), "utf8")).version).toBe("0.0.1");
  expect(readFileSync(join(root, "shared", "index.js"), "utf8")).toBe("module.exports = 'shared';\n");
  expect(JSON.parse(readFileSync(join(root, "deep", "package.json"), "utf8")).version).toBe("0.3.0");
  expect(JSON.parse(readFileSync(join(root, "packed", "package.json"), "utf8")).version).toBe("4.0.0");
  expect(lock().plugins["demo-plugin"].pinned).toEqual({
    vendored: `file:${join(mono, "plugins", "demo", "vendor", "vendored")}`,
    shared: `file:${join(mono, "shared")}`,
    packed: `file:${join(mono, "plugins", "demo", "packed.tgz")}`,
    deep: `file:${join(mono, "deep")}`,
  });

  const sneaky = await omp(["install", join(mono, "plugins", "sneaky")]);
  expect(sneaky.code).toBe(1);
  expect(sneaky.stderr).toContain(`dependency outside@file:../../../outside leads outside ${mono}, the folder the plugin came from; refused`);
  expect(existsSync(join(modules, "sneaky-plugin"))).toBe(false);
  // Outside any repository the boundary is the plugin folder itself: a sibling is refused too.
  writeTree(work, { "lone/package.json": pkg("lone-plugin", "1.0.0", { dependencies: { outside: "file:../outside" } }) });
  expect((await omp(["install", join(work, "lone")])).stderr).toContain("leads outside");
});

test("tarball URLs: downloaded, checked against package-lock.json's integrity, traversal refused", async () => {
  const { work, omp, modules, lock } = setup();
  const plugin = (name: string, deps: Record<string, string>, locked: Record<string, string> = {}) =>
    writeTree(join(work, name), {
      "package.json": pkg(name, "1.0.0", { dependencies: deps }),
      "package-lock.json": JSON.stringify({ lockfileVersion: 3, packages: Object.fromEntries(Object.entries(locked).map(([dep, integrity]) => [`node_modules/${dep}`, { resolved: deps[dep], integrity }])) }),
    });
  const ok = await omp(["install", plugin("tar-plugin", { "tar-helper": `${http}/tar-helper.tgz` }, { "tar-helper": sri(good) })]);
  expect(ok.stderr).toBe("");
  expect(readFileSync(join(modules, "tar-plugin", "node_modules", "tar-helper", "index.js"), "utf8")).toBe("module.exports = 'tar';\n");
  expect(lock().plugins["tar-plugin"].pinned["tar-helper"]).toBe(`${http}/tar-helper.tgz ${sri(good)}`);

  const wrong = await omp(["install", plugin("wrong-plugin", { "tar-helper": `${http}/tar-helper.tgz` }, { "tar-helper": sri(new Uint8Array([1])) })]);
  expect(wrong.code).toBe(1);
  expect(wrong.stderr).toContain(`dependency tar-helper@${http}/tar-helper.tgz: the tarball does not match its integrity sha512`);
  const evil = await omp(["install", plugin("evil-plugin", { evil: `${http}/evil.tgz` })]);
  expect(evil.code).toBe(1);
  expect(evil.stderr).toContain('is unsafe and was not unpacked: "../evil.txt" leads outside the folder');
  const missing = await omp(["install", plugin("missing-plugin", { gone: `${http}/gone.tgz` })]);
  expect(missing.code).toBe(1);
  expect(missing.stderr).toContain("404");
  expect(Object.keys(lock().plugins)).toEqual(["tar-plugin"]);
  expect(existsSync(join(work, "..", "evil.txt"))).toBe(false);
});

test("git dependencies: git+file:// on a branch pinned to the commit it resolved, the lockfile's commit preferred, github:owner/repo#tag", async () => {
  const { work, omp, modules, lock } = setup();
  const helper = join(gitBase, "helper.git");
  const first = commit(helper, { "package.json": pkg("git-helper", "1.0.0"), "index.js": "one\n" }, "one");
  const second = commit(helper, { "package.json": pkg("git-helper", "2.0.0"), "index.js": "two\n" }, "two");
  const tagged = join(gitBase, "acme", "gh-helper.git");
  commit(tagged, { "package.json": pkg("gh-helper", "5.0.0", { dependencies: { "git-helper": `git+file://${helper}#${first}` } }) });
  Bun.spawnSync(["git", "tag", "v5"], { cwd: tagged });
  commit(tagged, { "package.json": pkg("gh-helper", "6.0.0") });

  writeTree(join(work, "git-plugin"), {
    "package.json": pkg("git-plugin", "1.0.0", { dependencies: { "git-helper": `git+file://${helper}#main`, "gh-helper": "github:acme/gh-helper#v5" } }),
  });
  const result = await omp(["install", join(work, "git-plugin")]);
  expect(result.stderr).toBe("");
  const root = join(modules, "git-plugin", "node_modules");
  expect(readFileSync(join(root, "git-helper", "index.js"), "utf8")).toBe("two\n");
  expect(existsSync(join(root, "git-helper", ".git"))).toBe(false);
  expect(JSON.parse(readFileSync(join(root, "gh-helper", "package.json"), "utf8")).version).toBe("5.0.0");
  // gh-helper wants git-helper at the first commit; the top one is taken, so its copy nests.
  expect(readFileSync(join(root, "gh-helper", "node_modules", "git-helper", "index.js"), "utf8")).toBe("one\n");
  expect(lock().plugins["git-plugin"].pinned).toEqual({
    "git-helper": `git+file://${helper}#${second}`,
    "gh-helper": expect.stringMatching(new RegExp(`^${daemon.url}/acme/gh-helper\\.git#[0-9a-f]{40}$`)),
    "gh-helper/node_modules/git-helper": `git+file://${helper}#${first}`,
  });

  // A package-lock.json naming a commit pins the dependency there, whatever the branch says now.
  writeTree(join(work, "locked-plugin"), {
    "package.json": pkg("locked-plugin", "1.0.0", { dependencies: { "git-helper": `git+file://${helper}#main` } }),
    "package-lock.json": JSON.stringify({ lockfileVersion: 1, dependencies: { "git-helper": { version: `git+file://${helper}#${first}` } } }),
  });
  expect((await omp(["install", join(work, "locked-plugin")])).code).toBe(0);
  expect(readFileSync(join(modules, "locked-plugin", "node_modules", "git-helper", "index.js"), "utf8")).toBe("one\n");
  expect(lock().plugins["locked-plugin"].pinned["git-helper"]).toBe(`git+file://${helper}#${first}`);

  writeTree(join(work, "bad-git"), { "package.json": pkg("bad-git", "1.0.0", { dependencies: { nope: `git+file://${join(gitBase, "missing.git")}` } }) });
  const bad = await omp(["install", join(work, "bad-git")]);
  expect(bad.code).toBe(1);
  expect(bad.stderr).toContain("git clone failed");
});
