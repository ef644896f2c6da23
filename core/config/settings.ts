import { resolve } from "node:path";
import { expandHome, globalConfigPath, projectConfigPath } from "../paths.ts";
import { ConfigCache } from "./config-cache.ts";
import { configError } from "./config-error.ts";
import { OmpError } from "../errors/omp-error.ts";
import { EXIT_USAGE } from "../errors/exit-codes.ts";
import { warnUser } from "../errors/user-warnings.ts";
import { deepMerge, hasPath } from "./merge.ts";
import { plainSettingRules, settingsDefaults } from "./settings-plain.ts" with { type: "macro" };
import type { Settings, SettingsInput } from "./settings-schema.ts";
import { type Mapping, readConfigBytes } from "./config-file.ts";
import { folderTrust, noteSkippedForTrust } from "../trust/folder-trust.ts";
import { partChanged } from "../trust/content-pins.ts";
import { untrustedSettings } from "./untrusted-settings.ts";
import { activeProfile, profilePath, unknownProfile } from "./profiles.ts";

const DEFAULTS: Settings = settingsDefaults();
const PLAIN_RULES = plainSettingRules();

/** YAML and zod, loaded on a cache miss only (see config-cache.ts). */
const slowPath = () => require("./validate-files.ts") as typeof import("./validate-files.ts");

/**
 * Groups (and single keys) a project's file never gives, trusted folder or not: where credentials
 * come from, what the model's commands may touch and which hosts it may send to without asking
 * are the user's choice alone; so is where every project's memories are kept, and the relay (with its token) sessions are shared through.
 */
export const USER_ONLY_GROUPS: readonly string[] = ["auth", "sandbox", "web.allowHosts", "mnemopi.dbPath", "collab"];

/** `values` without the USER_ONLY_GROUPS entries, nested ones included (`web.allowHosts`). */
function withoutUserOnly(values: Mapping): Mapping {
  let result = values;
  for (const group of USER_ONLY_GROUPS) {
    const [head, key] = group.split(".") as [string, string | undefined];
    const inner = result[head];
    if (inner === undefined) continue;
    if (key === undefined) result = withoutKey(result, head);
    else if (inner !== null && typeof inner === "object" && !Array.isArray(inner) && key in inner) result = { ...result, [head]: withoutKey(inner as Mapping, key) };
  }
  return result;
}

const withoutKey = (values: Mapping, key: string): Mapping => Object.fromEntries(Object.entries(values).filter(([name]) => name !== key));

export const isUserOnly = (key: string) => USER_ONLY_GROUPS.some((group) => key === group || key.startsWith(`${group}.`));

export type LayerKind = "global" | "profile" | "project" | "overlay" | "runtime";

/** One source of settings, as written (without defaults). */
export interface SettingsLayer {
  kind: LayerKind;
  /** The file the values came from; absent for runtime overrides. */
  path?: string;
  values: Mapping;
}

export interface LoadSettingsOptions {
  /** The project directory whose `.omp/config.yml` applies; default the process's working directory. */
  cwd?: string;
  /** `--config` files in command-line order (later wins); relative to `cwd`, `~` expanded. Each must exist. */
  overlays?: string[];
  /** Values from flags such as `--model` or `--approval-mode`: highest precedence, never written anywhere. */
  runtime?: SettingsInput;
  env?: NodeJS.ProcessEnv;
  /** Whether the project's file may lower approvals and the like; default: the folder's stored trust. */
  trusted?: boolean;
  /** `--profile`: the profile laid over the user's file; default OMP_PROFILE (profiles.ts). Its file must exist. */
  profile?: string;
}

export interface LoadedSettings {
  settings: Settings;
  /** Lowest precedence first: global, profile, project, overlays, runtime (only those present). */
  layers: SettingsLayer[];
  /** The layer the effective value of a dotted key comes from; undefined when it is the default. */
  sourceOf(key: string): SettingsLayer | undefined;
}

/**
 * The effective settings: defaults ← global config.yml ← profile (profiles/<name>.yml) ←
 * project .omp/config.yml ← `--config` overlays ← runtime overrides; in an untrusted folder the project file gives only harmless
 * settings (core/config/untrusted-settings.ts). Each layer is validated on its own, so an error names the file
 * that has it; a file unchanged since it last validated comes from the config cache. Throws
 * OmpError (exit 2) on a missing overlay, bad YAML or an invalid value.
 */
export function loadSettings(options: LoadSettingsOptions = {}): LoadedSettings {
  const cwd = resolve(options.cwd ?? process.cwd());
  const cache = ConfigCache.open("settings", options.env);
  const layers: SettingsLayer[] = [];
  // Asked only when there is a project file: most folders have none.
  const trusted = () => options.trusted ?? folderTrust(cwd, { env: options.env }).trusted;
  const addFile = (kind: LayerKind, path: string, required: boolean) => {
    const bytes = kind === "overlay" ? readConfigBytes(path) : readKeptFile(path);
    if (bytes === undefined) {
      cache.forget(path);
      if (required) throw configError(path, ["file not found (given with --config)"]);
      return;
    }
    let values = kind === "overlay" ? cache.values(path, bytes, (text) => slowPath().settingsFileValues(text, path)) : readSettingsFile(cache, path, bytes, unsetCommandFor(kind, options.profile ?? activeProfile(options.env)));
    // Changed since the folder was trusted: as if untrusted until the user accepts it (changedNotice says so).
    const untrusted = kind === "project" && !trusted();
    if (untrusted || (kind === "project" && partChanged(cwd, path, options.env))) {
      const userMode = layers.findLast((layer) => layer.kind === "global" || layer.kind === "profile")?.values.approvalMode ?? DEFAULTS.approvalMode;
      const filtered = untrustedSettings(values, String(userMode));
      if (untrusted && filtered.skipped.length > 0) noteSkippedForTrust(`.omp/config.yml: ${filtered.skipped.join(", ")}`);
      values = filtered.values;
    }
    if (kind === "project") values = withoutUserOnly(values);
    layers.push({ kind, path, values });
  };

  try {
    addFile("global", globalConfigPath(options.env), false);
    const profile = activeProfile(options.env, options.profile);
    if (profile !== undefined) {
      addFile("profile", profilePath(profile, options.env), false);
      if (layers.at(-1)?.kind !== "profile") throw unknownProfile(profile, options.env);
    }
    addFile("project", projectConfigPath(cwd), false);
    for (const overlay of options.overlays ?? []) addFile("overlay", resolve(cwd, expandHome(overlay)), true);
  } finally {
    cache.save();
  }
  if (options.runtime) {
    if (!plainlyValid(options.runtime)) slowPath().checkRuntimeSettings(options.runtime);
    layers.push({ kind: "runtime", values: options.runtime as Mapping });
  }

  // Every layer is valid and no rule of the schema spans keys, so the layers laid over the defaults
  // are what the schema would make of their merge (test/unit/config/config-cache.test.ts compares
  // the two). Cloned because the result must share nothing with DEFAULTS or the layers.
  const settings = structuredClone(layers.reduce<Mapping>((acc, layer) => deepMerge(acc, layer.values), DEFAULTS)) as Settings;
  return {
    settings,
    layers,
    sourceOf(key) {
      const path = key.split(".");
      return layers.findLast((layer) => hasPath(layer.values, path));
    },
  };
}

/** A file the user keeps: one omp refuses to read (too big, a device) is skipped with a warning. */
function readKeptFile(path: string): Buffer | undefined {
  try {
    return readConfigBytes(path);
  } catch (error) {
    if (!(error instanceof OmpError) || error.exitCode !== EXIT_USAGE) throw error;
    warnUser(`${error.message} (the file is ignored until it is fixed)`);
    return undefined;
  }
}

/** How `omp config unset` names a key of that layer's file. */
function unsetCommandFor(kind: LayerKind, profile: string | undefined): (key: string) => string {
  const flag = kind === "project" ? " --project" : kind === "profile" ? ` --profile ${profile}` : "";
  return (key) => `omp config unset${flag} ${key}`;
}

/**
 * A settings file the user keeps (not a `--config` overlay, which must be right): one that does
 * not validate is read as far as it can be, with a warning, never the end of the run. Only a
 * valid file goes into the cache, so the warning comes back each run until the file is mended.
 */
function readSettingsFile(cache: ConfigCache, path: string, bytes: Buffer, unsetCommand: (key: string) => string): Mapping {
  try {
    return cache.values(path, bytes, (text) => slowPath().settingsFileValues(text, path));
  } catch (error) {
    if (!(error instanceof OmpError) || error.exitCode !== EXIT_USAGE) throw error;
    return slowPath().salvagedSettingsFile(bytes.toString("utf8"), path, unsetCommand);
  }
}

/**
 * Whether the schema surely accepts these values from flags (a model name, a thinking level, an
 * approval mode); when unsure, the schema decides and words the error.
 */
function plainlyValid(values: Mapping): boolean {
  return Object.entries(values).every(([key, value]) => {
    const rule = Object.hasOwn(PLAIN_RULES, key) ? PLAIN_RULES[key]! : undefined;
    if (rule === undefined || typeof value !== "string") return false;
    return "choices" in rule ? rule.choices.includes(value) : value.length >= rule.minLength;
  });
}

/**
 * The user's own settings as written (config.yml, under the active profile's file; no defaults,
 * no project file): for settings only the user may give.
 */
export function userSettingValues(env: NodeJS.ProcessEnv = process.env): Mapping {
  const cache = ConfigCache.open("settings", env);
  const read = (path: string, kind: LayerKind): Mapping | undefined => {
    const bytes = readKeptFile(path);
    return bytes === undefined ? undefined : readSettingsFile(cache, path, bytes, unsetCommandFor(kind, activeProfile(env)));
  };
  try {
    const user = read(globalConfigPath(env), "global") ?? {};
    const profile = activeProfile(env);
    if (profile === undefined) return user;
    const overlay = read(profilePath(profile, env), "profile");
    if (overlay === undefined) throw unknownProfile(profile, env);
    return deepMerge(user, overlay);
  } finally {
    cache.save();
  }
}
