import { execFileSync } from "node:child_process";
import { chmodSync, copyFileSync, cpSync, existsSync, linkSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { normalizePublicKey } from "../../core/update/signature.ts";

// Not from ./omp.ts: bench/release.ts uses this fixture outside the test runner.
const ROOT = join(import.meta.dir, "..", "..");
const VERSION: string = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).version;

/**
 * Two releases, A (this checkout's version, on stable) and B (the next minor, on canary), built by
 * release/build.ts and signed with a throwaway key, as the release tests need them. Building both
 * takes a minute or two (B's addon, stamped for B, is a separate cargo build, cached in
 * native/out/versions), so the result is cached under release/out/.test-cache, keyed by a digest
 * of everything that goes into a release; a new digest replaces the old cache.
 */

export const VERSION_A = VERSION;
export const VERSION_B = (() => {
  const [major, minor] = VERSION.split(".").map(Number);
  return `${major}.${minor! + 1}.0`;
})();
export const TARGET = `${process.platform}-${process.arch}`;

const CACHE = join(ROOT, "release", "out", ".test-cache");
const BUN = join(ROOT, "node_modules", ".bin", "bun");
const STALE_MS = 2 * 60 * 60 * 1000;

export interface ReleaseFixture {
  /** The release tree: <A>/, <B>/, channels/, install.sh. */
  root: string;
  keyPem: string;
  /** base64 SPKI of the throwaway key. */
  publicKey: string;
  dir(version: string): string;
  binary(version: string): string;
}

function sourceFiles(dir: string): string[] {
  const files: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    if (["node_modules", "target", "out", ".build"].includes(name) || name.startsWith(".")) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) files.push(...sourceFiles(path));
    else if (/\.(ts|rs|toml|sh|json)$/.test(name)) files.push(path);
  }
  return files;
}

function digest(publicKey: string): string {
  const hasher = new Bun.CryptoHasher("sha256");
  hasher.update(`${Bun.version}\0${publicKey}\0${VERSION_A}\0${VERSION_B}\0`);
  const files = [...["cli", "core", "embed", "native", "release"].flatMap((dir) => sourceFiles(join(ROOT, dir))), ...["package.json", "LICENSE", "README.md"].map((name) => join(ROOT, name))];
  for (const file of files) {
    hasher.update(relative(ROOT, file));
    hasher.update("\0");
    hasher.update(readFileSync(file));
  }
  return hasher.digest("hex").slice(0, 16);
}

/** The throwaway signing key, kept beside the cache so cached builds stay valid across runs. */
function throwawayKey(): string {
  const path = join(CACHE, "test-release-key.pem");
  if (!existsSync(path)) {
    mkdirSync(CACHE, { recursive: true });
    const pem = execFileSync("openssl", ["genpkey", "-algorithm", "ed25519"], { encoding: "utf8" });
    const temp = `${path}.${process.pid}.tmp`;
    writeFileSync(temp, pem, { mode: 0o600 });
    // A link never replaces a key another test run made meanwhile.
    try {
      linkSync(temp, path);
    } catch {}
    rmSync(temp, { force: true });
  }
  return readFileSync(path, "utf8");
}

async function buildInto(out: string, version: string, channel: string, keyPem: string): Promise<void> {
  const child = Bun.spawn([BUN, join(ROOT, "release", "build.ts"), "--version", version, "--channel", channel, "--out", out, "--targets", TARGET], {
    cwd: ROOT,
    env: { ...process.env, OMP_RELEASE_KEY: keyPem },
    stdio: ["ignore", "inherit", "inherit"],
  });
  if ((await child.exited) !== 0) throw new Error(`release/build.ts --version ${version} failed (see above)`);
}

let cached: Promise<ReleaseFixture> | null = null;

export function releaseFixture(): Promise<ReleaseFixture> {
  cached ??= (async () => {
    const keyPem = throwawayKey();
    const publicKey = normalizePublicKey(execFileSync("openssl", ["pkey", "-pubout"], { input: keyPem, encoding: "utf8" }));
    const key = digest(publicKey);
    const root = join(CACHE, key);
    if (!existsSync(join(root, "complete"))) {
      const work = `${root}.tmp-${process.pid}`;
      rmSync(work, { recursive: true, force: true });
      await buildInto(work, VERSION_A, "stable", keyPem);
      await buildInto(work, VERSION_B, "canary", keyPem);
      writeFileSync(join(work, "complete"), "");
      try {
        renameSync(work, root);
      } catch {
        // Another test run finished the same build first: use that one.
        rmSync(work, { recursive: true, force: true });
      }
    }
    // Marks this build as in use; older builds go, but not one another test run may still be using.
    utimesSync(root, new Date(), new Date());
    for (const name of readdirSync(CACHE)) {
      const path = join(CACHE, name);
      if (name === key || name === "test-release-key.pem" || Date.now() - statSync(path).mtimeMs < STALE_MS) continue;
      rmSync(path, { recursive: true, force: true });
    }
    return {
      root,
      keyPem,
      publicKey,
      dir: (version) => join(root, version),
      binary: (version) => join(root, version, `omp-${TARGET}`),
    };
  })();
  return cached;
}

/**
 * A directory to serve: the fixture's version dirs linked in (under `prefix`, for mirror layouts),
 * install.sh, and channel pointers as the test wants them.
 */
export function servedTree(fixture: ReleaseFixture, parent: string, options: { stable?: string; canary?: string; prefix?: string } = {}): string {
  const base = join(parent, options.prefix ?? "");
  mkdirSync(join(base, "channels"), { recursive: true });
  for (const version of [VERSION_A, VERSION_B]) symlinkSync(fixture.dir(version), join(base, version));
  copyFileSync(join(fixture.root, "install.sh"), join(base, "install.sh"));
  const date = new Date().toISOString();
  for (const [channel, version] of [["stable", options.stable ?? VERSION_A], ["canary", options.canary ?? VERSION_B]] as const) {
    writeFileSync(join(base, "channels", `${channel}.json`), JSON.stringify({ channel, version, date }));
  }
  return parent;
}

/** A copy of a version dir that a test may change (tamper with, re-sign) without touching the cache. */
export function copyRelease(fixture: ReleaseFixture, version: string, into: string): string {
  const dir = join(into, version);
  cpSync(fixture.dir(version), dir, { recursive: true });
  return dir;
}

/** Installs `version`'s binary as `<home>/.local/bin/omp`, as install.sh would. */
export function installBinary(fixture: ReleaseFixture, version: string, home: string, dir: string = join(home, ".local", "bin")): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, "omp");
  copyFileSync(fixture.binary(version), path);
  chmodSync(path, 0o755);
  return path;
}

/** Signs `file` into `file.sig` with `keyPem` (openssl, as release/sign.ts does). */
export function signWith(keyPem: string, file: string): void {
  const dir = mkdtempSync(join(tmpdir(), "omp-sign-test-"));
  try {
    writeFileSync(join(dir, "key.pem"), keyPem, { mode: 0o600 });
    execFileSync("openssl", ["pkeyutl", "-sign", "-rawin", "-inkey", join(dir, "key.pem"), "-in", file, "-out", `${file}.sig`]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
