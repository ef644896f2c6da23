import { existsSync, lstatSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, symlinkSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { OmpError, describeError } from "../errors/omp-error.ts";
import { expandHome } from "../paths.ts";
import { extractArchive } from "./archive.ts";
import { activeFeatures, declaredName, readPackageJson, resolveComponents } from "./components.ts";
import { copyPluginDir } from "./copy.ts";
import { checkGitUrl, cloneRepo, gitShorthand } from "./git.ts";
import { describeWhatRuns } from "./materialize.ts";
import { type FeatureSpec, isValidNpmName, parseNpmSpec } from "./names.ts";
import { type InstalledDependencies, installDependencies, installNpmPackage } from "./npm.ts";
import type { PackagePlace } from "./dep-sources.ts";
import { projectRoot } from "../fs/project-root.ts";
import { npmLockFile, npmModulesDir } from "./paths.ts";
import { type NpmPluginState, readNpmLock, writeState } from "./state.ts";
import { stagingDir } from "./staging.ts";
import { codeModules } from "./wiring.ts";
import { EXIT_USAGE } from "../errors/exit-codes.ts";

type Kind = NonNullable<NpmPluginState["kind"]>;

/** What `omp plugin install <x>` means when x is not `name@marketplace`. */
export function classifyTarget(target: string, cwd: string): { kind: Kind; location: string } {
  if (/\.(tgz|tar\.gz)$/i.test(target) && !/^https?:/i.test(target)) return { kind: "archive", location: resolve(cwd, expandHome(target)) };
  if (/^(github|gitlab|bitbucket|codeberg|sourcehut|srht):/.test(target)) return { kind: "git", location: gitShorthand(target) };
  if (/^(git\+)?(https?|ssh|git|file):\/\//.test(target) || /^[\w.-]+@[\w.-]+:/.test(target)) return { kind: "git", location: target.replace(/^git\+/, "") };
  if (target.startsWith(".") || target.startsWith("/") || target.startsWith("~")) return { kind: "local", location: resolve(cwd, expandHome(target)) };
  if (parseNpmSpec(target)) return { kind: "npm", location: target };
  throw new OmpError(`"${target}" is not something omp can install: give name@marketplace, an npm package (name or name@version), a git URL, a folder or a .tgz`, { exitCode: EXIT_USAGE });
}

export interface LocalInstallResult {
  name: string;
  version: string;
  origin: Kind;
  features: string[];
  runs: string[];
  dependencies: string[];
  /** Dependencies from outside the registry and what pins each (commit, integrity, folder). */
  pinned: Record<string, string>;
  previousVersion?: string;
}

/** Brings the target into `staging/pkg`; returns its folder. */
async function fetchTarget(kind: Kind, location: string, staging: string, cwd: string): Promise<{ dir: string; dependencies: InstalledDependencies }> {
  const dir = join(staging, "pkg");
  const scratch = join(staging, "downloads");
  mkdirSync(scratch, { recursive: true });
  if (kind === "npm") {
    const spec = parseNpmSpec(location)!;
    mkdirSync(dir);
    const { dependencies } = await installNpmPackage(spec.name, spec.range, dir, cwd, scratch);
    return { dir, dependencies };
  }
  // Where the plugin's `file:` dependencies resolve, and the folder they may not leave: a clone or
  // an unpacked archive is its own world; a folder may reach siblings within its repository.
  let place: PackagePlace;
  if (kind === "archive") {
    if (!existsSync(location)) throw new OmpError(`${location} does not exist`);
    mkdirSync(dir);
    await extractArchive(location, dir, location);
    place = { origin: dir, boundary: dir };
  } else if (kind === "git") {
    const [url, ref] = location.split("#") as [string, string | undefined];
    const clone = join(staging, "clone");
    await cloneRepo(checkGitUrl(url), clone, { ref });
    copyPluginDir(clone, dir);
    place = { origin: clone, boundary: clone };
  } else {
    if (!existsSync(location) || !statSync(location).isDirectory()) throw new OmpError(`${location} is not a folder`);
    copyPluginDir(location, dir);
    place = { origin: location, boundary: projectRoot(location) };
  }
  // A packed archive carries its dependencies; a folder or a clone gets them from their sources.
  const pkg = readPackageJson(dir);
  const missing = (list: Record<string, string> | undefined) => Object.fromEntries(Object.entries(list ?? {}).filter(([name]) => !existsSync(join(dir, "node_modules", name))));
  const dependencies = await installDependencies(dir, missing(pkg?.dependencies), missing(pkg?.optionalDependencies), cwd, scratch, place);
  return { dir, dependencies };
}

function pluginName(dir: string, fallback: string): string {
  const name = declaredName(dir) ?? fallback;
  if (!isValidNpmName(name)) throw new OmpError(`the plugin calls itself "${name}", which is not a valid package name (lowercase letters, digits, - . _ ~, optional @scope/)`);
  return name;
}

/**
 * Imports each extension the way a session will and checks it gives a factory: a plugin that would
 * break every session is refused at install instead.
 */
async function checkExtensions(paths: string[]): Promise<string | null> {
  for (const path of paths) {
    try {
      const module = await import(`${path}?check=${Date.now()}`);
      const factory = module.default ?? module.extension ?? module.activate;
      if (typeof factory !== "function") return `${path} does not export a function (export default (omp) => { ... })`;
    } catch (error) {
      return `${path} failed to load: ${describeError(error)}`;
    }
  }
  return null;
}

function chooseFeatures(dir: string, name: string, features: FeatureSpec["features"]): string[] | null {
  const manifest = readPackageJson(dir)?.manifest;
  const declared = Object.keys(manifest?.features ?? {});
  if (features === null) return null;
  if (features === "all") return declared;
  const unknown = features.filter((feature) => !declared.includes(feature));
  if (unknown.length > 0) throw new OmpError(`${name} has no feature ${unknown.join(", ")}; it has: ${declared.join(", ") || "none"}`, { exitCode: EXIT_USAGE });
  return features;
}

/**
 * npm, git, folder and archive installs land in `~/.omp/plugins/node_modules/<name>`. The new copy
 * is built aside, swapped in, and its extensions loaded; if one fails, the previous copy (or
 * nothing) is put back and the lockfile is left as it was.
 */
export async function installLocalPlugin(spec: FeatureSpec, cwd: string): Promise<LocalInstallResult> {
  const { kind, location } = classifyTarget(spec.target, cwd);
  const staging = stagingDir();
  try {
    const { dir, dependencies } = await fetchTarget(kind, location, staging, cwd);
    const fallback = kind === "npm" ? parseNpmSpec(location)!.name : basename(location).replace(/\.(tgz|tar\.gz|git)$/i, "");
    const name = pluginName(dir, fallback);
    const enabledFeatures = chooseFeatures(dir, name, spec.features);
    const dest = join(npmModulesDir(), name);
    mkdirSync(dirname(dest), { recursive: true });
    const aside = `${dest}.old-${process.pid}`;
    const hadPrevious = existsSync(dest) || isLink(dest);
    if (hadPrevious) renameSync(dest, aside);
    renameSync(dir, dest);
    const components = resolveComponents(dest, { features: enabledFeatures });
    const failure = await checkExtensions(codeModules(components));
    if (failure) {
      rmSync(dest, { recursive: true, force: true });
      if (hadPrevious) renameSync(aside, dest);
      throw new OmpError(`${name} was not installed: its extension ${failure}. ${hadPrevious ? "The previous version is still installed." : "Nothing was changed."}`);
    }
    if (hadPrevious) rmSync(aside, { recursive: true, force: true });
    const lock = readNpmLock();
    const previous = lock.plugins[name];
    const version = readPackageJson(dest)?.version ?? "0.0.0";
    lock.plugins[name] = { version, enabledFeatures, enabled: true, source: kind === "local" || kind === "archive" ? location : spec.target, kind };
    if (Object.keys(dependencies.pinned).length > 0) lock.plugins[name]!.pinned = dependencies.pinned;
    writeState(npmLockFile(), lock);
    return {
      name,
      version,
      origin: kind,
      features: readPackageJson(dest)?.manifest ? activeFeatures(readPackageJson(dest)!.manifest!, enabledFeatures) : [],
      runs: describeWhatRuns(components.hooks, components.mcp, codeModules(components)),
      dependencies: dependencies.installed,
      pinned: dependencies.pinned,
      previousVersion: previous?.version,
    };
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

/** `omp plugin link <path>`: the folder itself is used, live, for developing a plugin. */
export function linkPlugin(path: string, cwd: string): { name: string; target: string } {
  const target = resolve(cwd, expandHome(path));
  if (!existsSync(target) || !statSync(target).isDirectory()) throw new OmpError(`${target} is not a folder`);
  const name = pluginName(target, basename(target));
  const dest = join(npmModulesDir(), name);
  mkdirSync(dirname(dest), { recursive: true });
  rmSync(dest, { recursive: true, force: true });
  symlinkSync(target, dest, "dir");
  const lock = readNpmLock();
  lock.plugins[name] = { version: readPackageJson(target)?.version ?? "0.0.0", enabledFeatures: null, enabled: true, source: target, kind: "link" };
  writeState(npmLockFile(), lock);
  return { name, target };
}

export function uninstallLocalPlugin(name: string): void {
  const lock = readNpmLock();
  const dest = join(npmModulesDir(), name);
  if (!lock.plugins[name] && !existsSync(dest)) throw new OmpError(`${name} is not installed; see \`omp plugin list\``);
  delete lock.plugins[name];
  delete lock.settings[name];
  writeState(npmLockFile(), lock);
  // A link is removed, never what it points at.
  if (isLink(dest)) rmSync(dest);
  else rmSync(dest, { recursive: true, force: true });
  const scope = dirname(dest);
  if (scope !== npmModulesDir() && readdirSync(scope).length === 0) rmSync(scope, { recursive: true });
}
