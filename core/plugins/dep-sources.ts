import { existsSync, mkdirSync, realpathSync, statSync, writeFileSync } from "node:fs";
import { isAbsolute, join, relative, resolve } from "node:path";
import { OmpError } from "../errors/omp-error.ts";
import { readJsonIfPresent } from "../fs/read-json.ts";
import { fetchBytes } from "../update/http.ts";
import { extractArchive } from "./archive.ts";
import { checkGitUrl, cloneRepo, gitShorthand } from "./git.ts";
import { verifyIntegrity } from "./integrity.ts";

/**
 * Dependencies a plugin's package.json declares outside the registry, as npm reads them: `file:`
 * paths (a folder or a .tgz), tarball URLs, and git (`git+https://`, `git+file://`, `git://`,
 * `github:owner/repo#ref`, bare `owner/repo`). Registry ranges are not handled here.
 */
export type DependencySource = { kind: "file"; path: string } | { kind: "tarball"; url: string } | { kind: "git"; url: string; ref?: string } | { kind: "registry" };

/** A tarball dependency bigger than this is refused while it downloads. */
const MAX_TARBALL_BYTES = 100 * 1024 * 1024;
const SHA = /^[0-9a-f]{7,40}$/i;

function gitSource(spec: string): DependencySource {
  const hash = spec.indexOf("#");
  const url = hash === -1 ? spec : spec.slice(0, hash);
  const ref = hash === -1 ? undefined : spec.slice(hash + 1);
  if (ref?.startsWith("semver:")) throw new OmpError(`git dependency "${spec}" asks for a semver range of tags; give a branch, tag or commit after #`);
  return { kind: "git", url: checkGitUrl(url), ref: ref || undefined };
}

export function classifyDependency(spec: string): DependencySource {
  if (/^(file|link):/.test(spec)) return { kind: "file", path: spec.replace(/^(file|link):/, "") };
  if (/^git\+[a-z]+:\/\//.test(spec)) return gitSource(spec.slice(4));
  if (/^git:\/\//.test(spec)) return gitSource(spec);
  if (/^https?:\/\//.test(spec)) return { kind: "tarball", url: spec };
  if (/^(github|gitlab|bitbucket|codeberg|sourcehut|srht):/.test(spec)) return gitSource(gitShorthand(spec));
  if (/^[\w.-]+\/[\w.-]+(#.*)?$/.test(spec)) return gitSource(gitShorthand(`github:${spec}`));
  if (/^workspace:/.test(spec)) throw new OmpError(`"${spec}" names a workspace package; a plugin is installed on its own, so give it a version, a file: path or a git URL`);
  return { kind: "registry" };
}

/** What package-lock.json (v1, v2 or v3) says about a top-level dependency, if anything. */
export interface LockedDependency {
  resolved?: string;
  integrity?: string;
}

export function readLockedDependencies(dir: string): Record<string, LockedDependency> {
  const lock = readJsonIfPresent(join(dir, "package-lock.json")) as { packages?: Record<string, LockedDependency>; dependencies?: Record<string, LockedDependency & { version?: string }> } | undefined;
  const locked: Record<string, LockedDependency> = {};
  for (const [name, entry] of Object.entries(lock?.dependencies ?? {})) if (entry && typeof entry === "object") locked[name] = { resolved: entry.resolved ?? entry.version, integrity: entry.integrity };
  for (const [path, entry] of Object.entries(lock?.packages ?? {})) {
    const name = /^node_modules\/((?:@[^/]+\/)?[^/]+)$/.exec(path)?.[1];
    if (name && entry && typeof entry === "object") locked[name] = { resolved: entry.resolved, integrity: entry.integrity };
  }
  return locked;
}

/**
 * Where `file:` paths of a package resolve (`origin`) and the folder they must stay inside
 * (`boundary`); null for a package from a registry or a tarball, which has no folder of its own.
 */
export interface PackagePlace {
  origin: string;
  boundary: string;
}

export interface FetchedDependency {
  /** The package's files, to be copied into node_modules. */
  dir: string;
  /** What pins it: the commit for git, the integrity for a tarball, the folder for a path. */
  resolved: string;
  place: PackagePlace | null;
}

function inside(boundary: string, path: string): boolean {
  const rel = relative(realpathSync(boundary), path);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

async function unpack(file: string, scratch: string, what: string): Promise<string> {
  const dir = join(scratch, `unpacked-${Math.random().toString(36).slice(2, 10)}`);
  mkdirSync(dir, { recursive: true });
  await extractArchive(file, dir, what);
  return dir;
}

/** Fetches one non-registry dependency into `scratch`, checked: paths kept inside, sizes and integrity, git pinned. */
export async function fetchDependency(name: string, spec: string, source: DependencySource, place: PackagePlace | null, locked: LockedDependency | undefined, scratch: string): Promise<FetchedDependency> {
  const what = `dependency ${name}@${spec}`;
  switch (source.kind) {
    case "file": {
      if (!place) throw new OmpError(`${what}: a file: path is only allowed in a plugin's own folder, not in a package from a registry or a tarball`);
      const target = resolve(place.origin, source.path);
      if (!existsSync(target)) throw new OmpError(`${what}: ${target} does not exist`);
      const real = realpathSync(target);
      if (!inside(place.boundary, real)) throw new OmpError(`${what} leads outside ${place.boundary}, the folder the plugin came from; refused`);
      if (statSync(real).isDirectory()) return { dir: real, resolved: `file:${real}`, place: { origin: real, boundary: place.boundary } };
      return { dir: await unpack(real, scratch, what), resolved: `file:${real}`, place: null };
    }
    case "tarball": {
      const bytes = await fetchBytes(source.url, what, MAX_TARBALL_BYTES);
      if (locked?.integrity) verifyIntegrity(bytes, what, locked.integrity);
      const file = join(scratch, `download-${Math.random().toString(36).slice(2, 10)}.tgz`);
      writeFileSync(file, bytes);
      const integrity = `sha512-${new Bun.CryptoHasher("sha512").update(bytes).digest("base64")}`;
      return { dir: await unpack(file, scratch, what), resolved: `${source.url} ${integrity}`, place: null };
    }
    case "git": {
      // The lockfile's commit wins over a moving branch: the plugin gets what its author tested.
      const lockedSha = locked?.resolved?.match(/#([0-9a-f]{40})$/i)?.[1];
      const sha = lockedSha ?? (source.ref && SHA.test(source.ref) ? source.ref : undefined);
      const clone = join(scratch, `clone-${Math.random().toString(36).slice(2, 10)}`);
      const head = await cloneRepo(source.url, clone, { ref: sha ? undefined : source.ref, sha });
      return { dir: clone, resolved: `${source.url.startsWith("git:") ? "" : "git+"}${source.url}#${head}`, place: { origin: clone, boundary: clone } };
    }
    case "registry":
      throw new OmpError(`${what} is a registry dependency`);
  }
}
