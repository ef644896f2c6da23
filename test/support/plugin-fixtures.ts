import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writeTree } from "./fixture-tree.ts";

export { writeTree };

function git(args: string[], cwd: string): string {
  const result = Bun.spawnSync(["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main", ...args], { cwd, stdout: "pipe", stderr: "pipe" });
  if (result.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${result.stderr.toString()}`);
  return result.stdout.toString().trim();
}

/** A git repository at `dir` holding `files` in one new commit; returns that commit's sha. */
export function commit(dir: string, files: Record<string, string>, message = "change"): string {
  mkdirSync(dir, { recursive: true });
  try {
    git(["rev-parse", "--git-dir"], dir);
  } catch {
    git(["init", "-q"], dir);
  }
  writeTree(dir, files);
  git(["add", "-A"], dir);
  git(["commit", "-q", "-m", message], dir);
  return git(["rev-parse", "HEAD"], dir);
}

/** `git daemon` on a loopback port serving every repository under `base`, as git:// URLs. */
export async function startGitDaemon(base: string): Promise<{ url: string; close: () => void }> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const port = 20000 + Math.floor(Math.random() * 30000);
    const child = Bun.spawn(["git", "daemon", "--reuseaddr", "--export-all", `--base-path=${base}`, "--listen=127.0.0.1", `--port=${port}`, base], { stdout: "ignore", stderr: "pipe" });
    for (let i = 0; i < 50; i++) {
      try {
        const socket = await Bun.connect({ hostname: "127.0.0.1", port, socket: { data() {} } });
        socket.end();
        return { url: `git://127.0.0.1:${port}`, close: () => child.kill() };
      } catch {
        if (child.exitCode !== null) break;
        await Bun.sleep(50);
      }
    }
    child.kill();
  }
  throw new Error("git daemon did not start");
}

export interface RegistryPackage {
  name: string;
  version: string;
  files: Record<string, string>;
  dependencies?: Record<string, string>;
  /** Serve bytes that do not match the integrity the packument gives. */
  tamper?: boolean;
}

/** A tarball in npm's layout (`package/...`), as `npm pack` writes it. */
export async function npmTarball(pkg: RegistryPackage): Promise<Uint8Array> {
  // Not temp.ts's tempDir: the benchmarks use these fixtures outside the test runner.
  const dir = mkdtempSync(join(tmpdir(), "omp-pkg-"));
  writeTree(join(dir, "package"), {
    "package.json": JSON.stringify({ name: pkg.name, version: pkg.version, dependencies: pkg.dependencies, ...JSON.parse(pkg.files["package.json"] ?? "{}") }),
    ...Object.fromEntries(Object.entries(pkg.files).filter(([path]) => path !== "package.json")),
  });
  const { c } = await import("tar");
  const file = join(dir, "out.tgz");
  await c({ gzip: true, file, cwd: dir, portable: true }, ["package"]);
  const bytes = new Uint8Array(readFileSync(file));
  rmSync(dir, { recursive: true, force: true });
  return bytes;
}

/**
 * An npm registry on loopback speaking the registry's wire format: packuments at `/<name>` (scoped
 * names as `@scope%2fname`) with dist-tags, versions and `dist.{tarball, integrity, shasum}`, and
 * tarballs at `/<name>/-/<base>-<version>.tgz`. `stall` holds tarball responses open (for kill tests).
 */
export async function startRegistry(packages: RegistryPackage[]) {
  const tarballs = new Map<string, Uint8Array>();
  const requests: string[] = [];
  const state = { stall: false };
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: async (request) => {
      const path = decodeURIComponent(new URL(request.url).pathname.slice(1));
      requests.push(path);
      if (path.includes("/-/")) {
        if (state.stall) await Bun.sleep(60_000);
        const body = tarballs.get(path);
        return body ? new Response(body) : new Response("not found", { status: 404 });
      }
      const versions = packages.filter((pkg) => pkg.name === path);
      if (versions.length === 0) return Response.json({ error: "not found" }, { status: 404 });
      const doc = { name: path, "dist-tags": { latest: versions.at(-1)!.version }, versions: {} as Record<string, unknown> };
      for (const pkg of versions) {
        const key = `${pkg.name}/-/${pkg.name.split("/").at(-1)}-${pkg.version}.tgz`;
        const bytes = await npmTarball(pkg);
        const integrity = `sha512-${new Bun.CryptoHasher("sha512").update(bytes).digest("base64")}`;
        tarballs.set(key, pkg.tamper ? await npmTarball({ ...pkg, files: { ...pkg.files, "evil.js": "1" } }) : bytes);
        doc.versions[pkg.version] = {
          name: pkg.name,
          version: pkg.version,
          dependencies: pkg.dependencies,
          dist: { tarball: `http://127.0.0.1:${server.port}/${key}`, integrity, shasum: new Bun.CryptoHasher("sha1").update(bytes).digest("hex") },
        };
      }
      return Response.json(doc);
    },
  });
  return { url: `http://127.0.0.1:${server.port}/`, requests, state, close: () => server.stop(true) };
}
