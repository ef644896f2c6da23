// npm, git, folder and .tgz plugins (the original omp's `omp` manifest) with the compiled binary:
// npm installs from a registry the test serves on loopback in npm's packument and tarball formats
// (no npm or bun on PATH), integrity checked, dependencies installed; the feature grammar; a broken
// extension rolled back to the previous version; kill -9 mid-install; the offline archive round trip.
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, lstatSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { OMP, cleanEnv, runOmp, tempDir } from "../support/omp.ts";
import { commit, startRegistry, writeTree } from "../support/plugin-fixtures.ts";

const EXTENSION = "export default function activate(omp) { return { name: 'ok' }; }\n";
const MANIFEST = {
  omp: {
    extensions: ["./ext/main.ts"],
    features: {
      lint: { default: true, description: "lint commands", commands: ["./lint-commands"] },
      deploy: { description: "deploy tools", tools: ["./tools/deploy.ts"] },
    },
  },
};

const registry = await startRegistry([
  { name: "left-pad", version: "1.0.0", files: { "index.js": "module.exports = 1;\n" } },
  { name: "left-pad", version: "1.3.0", files: { "index.js": "module.exports = 3;\n" } },
  { name: "@util/strings", version: "2.0.0", files: { "index.js": "module.exports = 's';\n" }, dependencies: { "left-pad": "^1.0.0" } },
  {
    name: "omp-plugin-demo",
    version: "1.0.0",
    files: {
      "package.json": JSON.stringify(MANIFEST),
      "ext/main.ts": EXTENSION,
      "lint-commands/lint.md": "Lint\n",
      "tools/deploy.ts": "export default function (omp) { return []; }\n",
    },
    dependencies: { "@util/strings": "2.x" },
  },
  { name: "tampered", version: "1.0.0", files: { "index.js": "1" }, tamper: true },
]);
afterAll(() => registry.close());

/** PATH without node, npm or bun: only what git needs. */
const PATH = "/usr/bin:/bin";

function setup() {
  const home = tempDir("omp-home-");
  const work = tempDir("omp-work-");
  const omp = (args: string[], env: Record<string, string> = {}) => runOmp(["plugin", ...args], { home, cwd: work, env: { PATH, npm_config_registry: registry.url, ...env } });
  const lock = () => JSON.parse(readFileSync(join(home, ".omp", "plugins", "omp-plugins.lock.json"), "utf8"));
  const modules = join(home, ".omp", "plugins", "node_modules");
  return { home, work, omp, lock, modules };
}

describe("npm plugins", () => {
  test("installed from the registry with dependencies, features by grammar, integrity checked", async () => {
    const { omp, lock, modules } = setup();
    const result = await omp(["install", "omp-plugin-demo"]);
    expect(result.stderr).toBe("");
    expect(result.stdout).toContain("Installed omp-plugin-demo 1.0.0.");
    expect(result.stdout).toContain("features: lint");
    expect(result.stdout).toContain("dependencies: 2 packages");
    expect(result.stdout).toContain(`extension code: ${join(modules, "omp-plugin-demo", "ext", "main.ts")}`);
    const dir = join(modules, "omp-plugin-demo");
    expect(readFileSync(join(dir, "node_modules", "left-pad", "index.js"), "utf8")).toBe("module.exports = 3;\n");
    expect(existsSync(join(dir, "node_modules", "@util", "strings", "package.json"))).toBe(true);
    expect(lock().plugins["omp-plugin-demo"]).toMatchObject({ version: "1.0.0", enabledFeatures: null, enabled: true, kind: "npm" });

    expect((await omp(["install", "omp-plugin-demo[*]"])).stdout).toContain("features: lint, deploy");
    expect(lock().plugins["omp-plugin-demo"].enabledFeatures).toEqual(["lint", "deploy"]);
    expect((await omp(["install", "omp-plugin-demo@1.0.0[]"])).stdout).not.toContain("features:");
    expect(lock().plugins["omp-plugin-demo"].enabledFeatures).toEqual([]);
    const unknown = await omp(["install", "omp-plugin-demo[nope]"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("has no feature nope; it has: lint, deploy");

    const features = await omp(["features", "omp-plugin-demo", "--enable", "deploy", "--json"]);
    expect(JSON.parse(features.stdout).map((f: { name: string; enabled: boolean }) => [f.name, f.enabled])).toEqual([["lint", false], ["deploy", true]]);
    const config = await omp(["config", "omp-plugin-demo", "--set", "region=eu", "--set", "retries=3", "--json"]);
    expect(JSON.parse(config.stdout)).toEqual({ region: "eu", retries: 3 });

    const tampered = await omp(["install", "tampered"]);
    expect(tampered.code).toBe(1);
    expect(tampered.stderr).toContain("does not match its integrity sha512");
    expect(existsSync(join(modules, "tampered"))).toBe(false);

    const missing = await omp(["install", "no-such-package"]);
    expect(missing.stderr).toContain(`npm package no-such-package was not found in ${registry.url}`);
    const shell = await omp(["install", "pkg;rm -rf ~"]);
    expect(shell.code).toBe(2);

    expect((await omp(["uninstall", "omp-plugin-demo"])).code).toBe(0);
    expect(existsSync(dir)).toBe(false);
    expect(lock().plugins).toEqual({});
  });

  test("the registry comes from ~/.npmrc when npm_config_registry is unset", async () => {
    const { home, omp, lock } = setup();
    writeFileSync(join(home, ".npmrc"), `registry=${registry.url}\n`);
    const result = await omp(["install", "left-pad@1.0.0"], { npm_config_registry: "" });
    expect(result.stderr).toBe("");
    expect(lock().plugins["left-pad"].version).toBe("1.0.0");
  });
});

describe("git, folder, link and archive plugins", () => {
  test("a git URL and a folder get their dependencies from the registry; link uses the folder live", async () => {
    const { work, omp, lock, modules } = setup();
    const repo = join(work, "repo.git");
    commit(repo, { "package.json": JSON.stringify({ name: "git-plugin", version: "0.2.0", dependencies: { "left-pad": "1.0.0" }, ...MANIFEST }), "ext/main.ts": EXTENSION });
    expect((await omp(["install", `file://${repo}`])).stdout).toContain("Installed git-plugin 0.2.0.");
    expect(readFileSync(join(modules, "git-plugin", "node_modules", "left-pad", "index.js"), "utf8")).toBe("module.exports = 1;\n");
    expect(existsSync(join(modules, "git-plugin", ".git"))).toBe(false);

    const folder = writeTree(join(work, "dev"), { "package.json": JSON.stringify({ name: "dev-plugin", version: "0.0.1", omp: {} }), "commands/x.md": "x" });
    expect((await omp(["install", folder])).code).toBe(0);
    expect(lock().plugins["dev-plugin"].kind).toBe("local");
    expect((await omp(["link", folder])).stdout).toContain("Linked dev-plugin");
    expect(lstatSync(join(modules, "dev-plugin")).isSymbolicLink()).toBe(true);
    expect((await omp(["uninstall", "dev-plugin"])).code).toBe(0);
    expect(existsSync(join(folder, "commands", "x.md"))).toBe(true);
  });

  test("a broken extension is rolled back: the previous version stays installed and in the lockfile", async () => {
    const { work, omp, lock, modules } = setup();
    const good = writeTree(join(work, "good"), { "package.json": JSON.stringify({ name: "fragile", version: "1.0.0", ...MANIFEST }), "ext/main.ts": EXTENSION });
    expect((await omp(["install", good])).code).toBe(0);
    const broken = writeTree(join(work, "broken"), { "package.json": JSON.stringify({ name: "fragile", version: "2.0.0", ...MANIFEST }), "ext/main.ts": "export default function (\n" });
    const result = await omp(["install", broken]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("fragile was not installed: its extension");
    expect(result.stderr).toContain("The previous version is still installed.");
    expect(JSON.parse(readFileSync(join(modules, "fragile", "package.json"), "utf8")).version).toBe("1.0.0");
    expect(lock().plugins.fragile.version).toBe("1.0.0");
    const notAFunction = writeTree(join(work, "nf"), { "package.json": JSON.stringify({ name: "nofn", version: "1.0.0", ...MANIFEST }), "ext/main.ts": "export default 42;\n" });
    const second = await omp(["install", notAFunction]);
    expect(second.stderr).toContain("does not export a function");
    expect(second.stderr).toContain("Nothing was changed.");
    expect(existsSync(join(modules, "nofn"))).toBe(false);
  });

  test("kill -9 during an install leaves the previous state working; the next run cleans up", async () => {
    const { home, work, omp, lock, modules } = setup();
    expect((await omp(["install", "left-pad@1.0.0"])).code).toBe(0);
    const before = readFileSync(join(home, ".omp", "plugins", "omp-plugins.lock.json"), "utf8");
    registry.state.stall = true;
    const child = Bun.spawn([OMP, "plugin", "install", "left-pad@1.3.0"], { cwd: work, env: cleanEnv(home, { PATH, npm_config_registry: registry.url }), stdio: ["ignore", "pipe", "pipe"] });
    const staging = join(home, ".omp", "plugins", "cache", ".staging");
    for (let i = 0; i < 200 && !(existsSync(staging) && readdirSync(staging).length > 0); i++) await Bun.sleep(25);
    expect(readdirSync(staging).length).toBe(1);
    child.kill(9);
    await child.exited;
    registry.state.stall = false;
    expect(readFileSync(join(home, ".omp", "plugins", "omp-plugins.lock.json"), "utf8")).toBe(before);
    expect(readFileSync(join(modules, "left-pad", "index.js"), "utf8")).toBe("module.exports = 1;\n");
    // The dead process's lock and staging dir do not block or linger.
    const next = await omp(["install", "left-pad@1.3.0"]);
    expect(next.stderr).toBe("");
    expect(readdirSync(staging)).toEqual([]);
    expect(lock().plugins["left-pad"].version).toBe("1.3.0");
  });

  test("pack writes one archive with the plugin and its dependencies; it installs on a machine with no network", async () => {
    const online = setup();
    expect((await online.omp(["install", "omp-plugin-demo[*]"])).code).toBe(0);
    const archive = join(online.work, "demo.tgz");
    const packed = await online.omp(["pack", "omp-plugin-demo", "-o", archive]);
    expect(packed.stdout).toContain("Wrote ");

    const offline = setup();
    const requests = registry.requests.length;
    const result = await offline.omp(["install", archive], { npm_config_registry: "http://127.0.0.1:9/" });
    expect(result.stderr).toBe("");
    expect(result.stdout).toContain("Installed omp-plugin-demo 1.0.0.");
    expect(registry.requests.length).toBe(requests);
    expect(existsSync(join(offline.modules, "omp-plugin-demo", "node_modules", "@util", "strings", "node_modules", "left-pad")) || existsSync(join(offline.modules, "omp-plugin-demo", "node_modules", "left-pad"))).toBe(true);
    expect(offline.lock().plugins["omp-plugin-demo"].kind).toBe("archive");
  });

  test("archives with .., absolute paths or links out are refused before anything is written", async () => {
    const { work, omp, modules } = setup();
    const { c } = await import("tar");
    const root = writeTree(join(work, "evil"), { "package/package.json": JSON.stringify({ name: "evil", version: "1.0.0" }) });
    const { symlinkSync } = await import("node:fs");
    symlinkSync("/etc/passwd", join(root, "package", "passwd"));
    await c({ gzip: true, file: join(work, "link.tgz"), cwd: root }, ["package"]);
    const link = await omp(["install", join(work, "link.tgz")]);
    expect(link.code).toBe(1);
    expect(link.stderr).toContain("is unsafe and was not unpacked");
    expect(link.stderr).toContain("outside the folder");
    const dots = writeTree(join(work, "dots"), { "package/package.json": "{}", "x": "escaped" });
    await c({ gzip: true, file: join(work, "dots.tgz"), cwd: join(dots, "package"), preservePaths: true }, ["package.json", "../x"]);
    const dotdot = await omp(["install", join(work, "dots.tgz")]);
    expect(dotdot.stderr).toContain("is unsafe and was not unpacked");
    expect(existsSync(join(modules, "evil"))).toBe(false);
  });

  test("concurrent plugin commands never lose each other's state (one cross-process lock)", async () => {
    const { omp, lock, work } = setup();
    const folders = Array.from({ length: 4 }, (_, i) => writeTree(join(work, `p${i}`), { "package.json": JSON.stringify({ name: `parallel-${i}`, version: "1.0.0", omp: {} }) }));
    const results = await Promise.all([...folders.map((folder) => omp(["install", folder])), omp(["install", "left-pad@1.0.0"])]);
    expect(results.map((result) => result.code)).toEqual([0, 0, 0, 0, 0]);
    expect(Object.keys(lock().plugins).sort()).toEqual(["left-pad", "parallel-0", "parallel-1", "parallel-2", "parallel-3"]);
  });

  test("doctor finds and fixes what points at nothing", async () => {
    const { home, omp, modules } = setup();
    expect((await omp(["install", "left-pad@1.0.0"])).code).toBe(0);
    const { rmSync } = await import("node:fs");
    rmSync(join(modules, "left-pad"), { recursive: true });
    const found = await omp(["doctor", "--json"]);
    expect(found.code).toBe(1);
    expect(JSON.parse(found.stdout)).toEqual([{ plugin: "left-pad", problem: expect.stringContaining("is missing"), fixed: false }]);
    expect((await omp(["doctor", "--fix"])).stdout).toContain("fixed");
    expect((await omp(["doctor"])).stdout).toBe("Plugins: no problems found.\n");
    expect(JSON.parse(readFileSync(join(home, ".omp", "plugins", "omp-plugins.lock.json"), "utf8")).plugins).toEqual({});
  });
});
