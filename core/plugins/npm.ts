import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { OmpError, describeError } from "../errors/omp-error.ts";
import { extractArchive } from "./archive.ts";
import { readPackageJson } from "./components.ts";
import { copyPluginDir } from "./copy.ts";
import { type PackagePlace, classifyDependency, fetchDependency, readLockedDependencies } from "./dep-sources.ts";
import { verifyIntegrity } from "./integrity.ts";
import { isValidNpmName } from "./names.ts";
import { type Registry, registryFor } from "./registry.ts";

/**
 * npm installs without npm: the packument and tarball are fetched from the registry with fetch,
 * each tarball checked against the packument's integrity (sha512, or sha1 for old packages) and
 * unpacked with the archive checks. The runtime inside dist/omp does all of it, so a machine with
 * no node, npm or bun installs plugins the same.
 */

interface VersionInfo {
  name: string;
  version: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  dist: { tarball: string; integrity?: string; shasum?: string };
}

interface Packument {
  "dist-tags"?: Record<string, string>;
  versions: Record<string, VersionInfo>;
}

async function request(url: string, registry: Registry, accept: string): Promise<Response> {
  const headers: Record<string, string> = { accept };
  // The token goes only to the registry it was configured for, never to a tarball host elsewhere.
  if (registry.token && url.startsWith(registry.url)) headers.authorization = `Bearer ${registry.token}`;
  let response: Response;
  try {
    response = await fetch(url, { headers, redirect: "follow" });
  } catch (error) {
    throw new OmpError(`could not reach the npm registry at ${registry.url} (${describeError(error)}); check the network, or set npm_config_registry to a mirror`);
  }
  return response;
}

const packuments = new Map<string, Promise<Packument>>();

function packument(name: string, cwd: string): Promise<Packument> {
  let cached = packuments.get(name);
  if (!cached) {
    cached = (async () => {
      const registry = registryFor(name, cwd);
      const response = await request(`${registry.url}${name.replace("/", "%2f")}`, registry, "application/vnd.npm.install-v1+json; q=1.0, application/json; q=0.8");
      if (response.status === 404) throw new OmpError(`npm package ${name} was not found in ${registry.url}`);
      if (!response.ok) throw new OmpError(`the npm registry ${registry.url} answered ${response.status} for ${name}`);
      return (await response.json()) as Packument;
    })();
    packuments.set(name, cached);
  }
  return cached;
}

/** The version a range or dist-tag picks: npm's rule, the highest that satisfies (Bun's semver). */
export async function resolveVersion(name: string, range: string, cwd: string): Promise<VersionInfo> {
  const doc = await packument(name, cwd);
  const tagged = doc["dist-tags"]?.[range === "" || range === "*" ? "latest" : range];
  if (tagged && doc.versions[tagged]) return doc.versions[tagged]!;
  const latest = doc["dist-tags"]?.latest;
  if (latest && doc.versions[latest] && Bun.semver.satisfies(latest, range)) return doc.versions[latest]!;
  const candidates = Object.keys(doc.versions)
    .filter((version) => Bun.semver.satisfies(version, range))
    .sort((a, b) => Bun.semver.order(b, a));
  const picked = candidates[0];
  if (!picked) throw new OmpError(`npm package ${name} has no version matching "${range}" (latest is ${latest ?? "unknown"})`);
  return doc.versions[picked]!;
}

/** Downloads, verifies and unpacks one package version into `dest`. */
async function unpackVersion(info: VersionInfo, dest: string, cwd: string, scratch: string): Promise<void> {
  const registry = registryFor(info.name, cwd);
  const response = await request(info.dist.tarball, registry, "application/octet-stream");
  if (!response.ok) throw new OmpError(`downloading ${info.name}@${info.version} failed: ${response.status} from ${info.dist.tarball}`);
  const bytes = new Uint8Array(await response.arrayBuffer());
  verifyIntegrity(bytes, `${info.name}@${info.version}`, info.dist.integrity, info.dist.shasum);
  const file = join(scratch, `${info.name.replace("/", "+")}-${info.version}.tgz`);
  writeFileSync(file, bytes);
  mkdirSync(dest, { recursive: true });
  await extractArchive(file, dest, `the tarball of ${info.name}@${info.version}`);
}

export interface InstalledDependencies {
  /** `name@version` of every package placed. */
  installed: string[];
  /** Those from outside the registry by where they sit under node_modules, each with what pins it (commit, integrity or folder). */
  pinned: Record<string, string>;
}

/**
 * Installs `deps` (name → range or spec) under `root/node_modules` the way npm lays them out: each
 * at the top when its name is free or already holds a version that satisfies, otherwise nested
 * under the package that needs it. Registry ranges come from the registry; `file:`, tarball and git
 * specs through dep-sources.ts, `file:` ones only from a plugin's own folder (`place`). Optional
 * dependencies that fail are left out, as npm does.
 */
export async function installDependencies(root: string, deps: Record<string, string>, optional: Record<string, string>, cwd: string, scratch: string, place: PackagePlace | null = null): Promise<InstalledDependencies> {
  const placed = new Map<string, string>();
  const result: InstalledDependencies = { installed: [], pinned: {} };
  const locked = place ? readLockedDependencies(place.origin) : {};
  const queue: { parent: string; name: string; range: string; optional: boolean; place: PackagePlace | null }[] = [];
  const enqueue = (parent: string, info: { dependencies?: Record<string, string>; optionalDependencies?: Record<string, string> }, from: PackagePlace | null) => {
    for (const [name, range] of Object.entries(info.dependencies ?? {})) queue.push({ parent, name, range, optional: false, place: from });
    for (const [name, range] of Object.entries(info.optionalDependencies ?? {})) queue.push({ parent, name, range, optional: true, place: from });
  };
  enqueue(root, { dependencies: deps, optionalDependencies: optional }, place);
  while (queue.length > 0) {
    const item = queue.shift()!;
    if (!isValidNpmName(item.name)) throw new OmpError(`a dependency is named "${item.name}", which is not a valid npm name; refusing the install`);
    try {
      const source = classifyDependency(item.range);
      const top = placed.get(item.name);
      if (top && (top === item.range || (source.kind === "registry" && Bun.semver.satisfies(top, item.range)))) continue;
      const dest = join(top ? item.parent : root, "node_modules", item.name);
      if (source.kind === "registry") {
        const info = await resolveVersion(item.name, item.range, cwd);
        if (!top) placed.set(item.name, info.version);
        await unpackVersion(info, dest, cwd, scratch);
        result.installed.push(`${info.name}@${info.version}`);
        enqueue(dest, info, null);
        continue;
      }
      const fetched = await fetchDependency(item.name, item.range, source, item.place, item.parent === root ? locked[item.name] : undefined, scratch);
      mkdirSync(dirname(dest), { recursive: true });
      copyPluginDir(fetched.dir, dest);
      if (!top) placed.set(item.name, item.range);
      const pkg = readPackageJson(dest);
      result.installed.push(`${item.name}@${pkg?.version ?? "0.0.0"}`);
      result.pinned[relative(join(root, "node_modules"), dest)] = fetched.resolved;
      // A copied folder may already carry its node_modules: only what is missing is fetched.
      const missing = (list: Record<string, string> | undefined) => Object.fromEntries(Object.entries(list ?? {}).filter(([name]) => !existsSync(join(dest, "node_modules", name))));
      enqueue(dest, { dependencies: missing(pkg?.dependencies), optionalDependencies: missing(pkg?.optionalDependencies) }, fetched.place);
    } catch (error) {
      if (!item.optional) throw error;
    }
  }
  return result;
}

/** Fetches `name@range` into `dest` with its dependencies; returns the version installed. */
export async function installNpmPackage(name: string, range: string, dest: string, cwd: string, scratch: string): Promise<{ version: string; dependencies: InstalledDependencies }> {
  const info = await resolveVersion(name, range, cwd);
  await unpackVersion(info, dest, cwd, scratch);
  const dependencies = await installDependencies(dest, info.dependencies ?? {}, info.optionalDependencies ?? {}, cwd, scratch);
  return { version: info.version, dependencies };
}
