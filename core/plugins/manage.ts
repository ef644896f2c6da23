import { existsSync, lstatSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { OmpError } from "../errors/omp-error.ts";
import { packDirectory } from "./archive.ts";
import { activeFeatures, readPackageJson, resolveComponents } from "./components.ts";
import { installedFile } from "./install.ts";
import { parsePluginId } from "./names.ts";
import { npmLockFile, npmModulesDir } from "./paths.ts";
import { readInstalled, readNpmLock, writeState } from "./state.ts";
import { EXIT_USAGE } from "../errors/exit-codes.ts";

/** Feature and settings commands for npm, git, local and linked plugins (the lockfile's entries). */
function lockEntry(name: string) {
  const lock = readNpmLock();
  const entry = lock.plugins[name];
  if (!entry) throw new OmpError(`${name} is not an installed npm, git or local plugin; see \`omp plugin list\``);
  return { lock, entry };
}

export interface FeatureView {
  name: string;
  description?: string;
  default: boolean;
  enabled: boolean;
}

export function pluginFeatures(name: string): FeatureView[] {
  const { entry } = lockEntry(name);
  const manifest = readPackageJson(join(npmModulesDir(), name))?.manifest;
  const active = new Set(manifest ? activeFeatures(manifest, entry.enabledFeatures) : []);
  return Object.entries(manifest?.features ?? {}).map(([feature, spec]) => ({ name: feature, description: spec.description, default: spec.default === true, enabled: active.has(feature) }));
}

export function changeFeatures(name: string, change: { enable?: string[]; disable?: string[]; set?: string[] }): string[] {
  const { lock, entry } = lockEntry(name);
  const manifest = readPackageJson(join(npmModulesDir(), name))?.manifest;
  const declared = Object.keys(manifest?.features ?? {});
  const unknown = [...(change.enable ?? []), ...(change.disable ?? []), ...(change.set ?? [])].filter((feature) => !declared.includes(feature));
  if (unknown.length > 0) throw new OmpError(`${name} has no feature ${unknown.join(", ")}; it has: ${declared.join(", ") || "none"}`, { exitCode: EXIT_USAGE });
  let current = new Set(change.set ?? (manifest ? activeFeatures(manifest, entry.enabledFeatures) : []));
  for (const feature of change.enable ?? []) current.add(feature);
  for (const feature of change.disable ?? []) current.delete(feature);
  entry.enabledFeatures = [...current];
  writeState(npmLockFile(), lock);
  return entry.enabledFeatures;
}

/** `config --set k=v`: values are JSON when they parse as JSON (numbers, booleans, lists), else strings. */
export function setPluginSettings(name: string, pairs: string[]): Record<string, unknown> {
  const { lock } = lockEntry(name);
  const settings = (lock.settings[name] ??= {});
  for (const pair of pairs) {
    const eq = pair.indexOf("=");
    if (eq <= 0) throw new OmpError(`"${pair}" is not key=value`, { exitCode: EXIT_USAGE });
    const raw = pair.slice(eq + 1);
    let value: unknown = raw;
    try {
      value = JSON.parse(raw);
    } catch {}
    settings[pair.slice(0, eq)] = value;
  }
  writeState(npmLockFile(), lock);
  return settings;
}

export function pluginSettings(name: string): Record<string, unknown> {
  const { lock } = lockEntry(name);
  return lock.settings[name] ?? {};
}

export interface DoctorFinding {
  plugin: string;
  problem: string;
  fixed: boolean;
}

/**
 * What is out of step between the state files and the disk: lockfile entries whose folder is gone,
 * features a plugin no longer declares, manifest paths that do not exist, marketplace installs
 * whose cache is gone. `--fix` drops what points at nothing.
 */
export function pluginDoctor(cwd: string, fix: boolean): DoctorFinding[] {
  const findings: DoctorFinding[] = [];
  const lock = readNpmLock((message) => findings.push({ plugin: "(lockfile)", problem: message, fixed: false }));
  let lockChanged = false;
  for (const [name, entry] of Object.entries(lock.plugins)) {
    const root = join(npmModulesDir(), name);
    if (!existsSync(root)) {
      findings.push({ plugin: name, problem: `its folder ${root} is missing`, fixed: fix });
      if (fix) {
        delete lock.plugins[name];
        delete lock.settings[name];
        lockChanged = true;
      }
      continue;
    }
    const manifest = readPackageJson(root)?.manifest;
    const declared = Object.keys(manifest?.features ?? {});
    const stale = (entry.enabledFeatures ?? []).filter((feature) => !declared.includes(feature));
    if (stale.length > 0) {
      findings.push({ plugin: name, problem: `enables features it no longer has: ${stale.join(", ")}`, fixed: fix });
      if (fix) {
        entry.enabledFeatures = (entry.enabledFeatures ?? []).filter((feature) => declared.includes(feature));
        lockChanged = true;
      }
    }
    if (manifest) {
      const paths = [manifest.extensions, manifest.tools, manifest.hooks].flatMap((value) => (typeof value === "string" ? [value] : Array.isArray(value) ? value : []));
      const resolved = resolveComponents(root, { features: entry.enabledFeatures });
      const found = resolved.extensions.length + resolved.tools.length + resolved.hookModules.length;
      if (found < paths.length) findings.push({ plugin: name, problem: `names ${paths.length} extension, tool or hook modules but only ${found} exist`, fixed: false });
    }
  }
  for (const entry of safeReaddir(npmModulesDir())) {
    const names = entry.startsWith("@") ? safeReaddir(join(npmModulesDir(), entry)).map((inner) => `${entry}/${inner}`) : [entry];
    for (const name of names) {
      if (lock.plugins[name] || /\.old-\d+$/.test(name)) continue;
      findings.push({ plugin: name, problem: "is in node_modules but not in the lockfile (an interrupted install or a manual copy)", fixed: fix });
      if (fix) rmSync(join(npmModulesDir(), name), { recursive: true, force: true });
    }
  }
  if (lockChanged) writeState(npmLockFile(), lock);
  for (const scope of ["user", "project"] as const) {
    const file = installedFile(scope, cwd);
    if (!existsSync(file)) continue;
    const state = readInstalled(file, (message) => findings.push({ plugin: `(${scope} installs)`, problem: message, fixed: false }));
    let changed = false;
    for (const [key, records] of Object.entries(state.plugins)) {
      const kept = records.filter((record) => existsSync(record.installPath));
      if (kept.length < records.length || !parsePluginId(key)) {
        findings.push({ plugin: key, problem: parsePluginId(key) ? `its ${scope} install folder is missing` : "is not a valid name@marketplace", fixed: fix });
        if (fix) {
          changed = true;
          if (kept.length === 0 || !parsePluginId(key)) delete state.plugins[key];
          else state.plugins[key] = kept;
        }
      }
    }
    if (changed) writeState(file, state);
  }
  return findings;
}

function safeReaddir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/**
 * `omp plugin pack <name>`: one .tgz with the plugin and the dependencies it needs, for a machine
 * with no network; `omp plugin install ./file.tgz` takes it. A marketplace plugin packs its
 * installed folder, an npm or local one its folder with node_modules.
 */
export async function packPlugin(name: string, out: string | undefined, cwd: string): Promise<string> {
  let root: string | null = null;
  const id = parsePluginId(name);
  if (id) {
    for (const scope of ["project", "user"] as const) {
      const record = readInstalled(installedFile(scope, cwd)).plugins[name]?.[0];
      if (record && existsSync(record.installPath)) root = record.installPath;
    }
  } else if (readNpmLock().plugins[name]) root = join(npmModulesDir(), name);
  if (!root || !existsSync(root)) throw new OmpError(`${name} is not installed; see \`omp plugin list\``);
  if (lstatSync(root).isSymbolicLink()) root = resolve(dirname(root), (await import("node:fs")).readlinkSync(root));
  const version = readPackageJson(root)?.version;
  const file = resolve(cwd, out ?? `${(id?.plugin ?? name).replace(/^@/, "").replace("/", "-")}${version ? `-${version}` : ""}.tgz`);
  mkdirSync(dirname(file), { recursive: true });
  await packDirectory(root, file);
  return file;
}
