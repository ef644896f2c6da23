import { dirname } from "node:path";
import { isScalar } from "yaml";
import { displayPath, ensurePrivateDir, globalConfigPath, projectConfigPath } from "../paths.ts";
import { salvageConfig } from "./validate-config.ts";
import { configError } from "./config-error.ts";
import { writeFileAtomic } from "../fs/atomic-write.ts";
import { ownWrite } from "../trust/content-pins.ts";
import { lockPathBeside, withFileLockSync } from "../fs/file-lock.ts";
import { OmpError, describeError } from "../errors/omp-error.ts";
import { checkSettingKey, parseSettingValue } from "./settings-keys.ts";
import { Settings } from "./settings-schema.ts";
import { readConfigText } from "./config-file.ts";
import { parseYamlDocument, parseYamlMapping } from "./yaml-file.ts";
import { EXIT_USAGE } from "../errors/exit-codes.ts";
import { profilePath } from "./profiles.ts";
import { type LoadedSettings, type SettingsLayer, isUserOnly } from "./settings.ts";

/** Which file a write goes to: the user's config.yml (global), a profile's file, or the project's .omp/config.yml. */
export type SettingScope = "global" | "profile" | "project";

export interface SettingTarget {
  scope: SettingScope;
  env?: NodeJS.ProcessEnv;
  /** The project, for the project scope. */
  cwd?: string;
  /** The profile's name, for the profile scope. */
  profile?: string;
}

/** The file `target` names; a user-only key refused for the project, which would ignore it. */
export function settingFile(key: string, target: SettingTarget): string {
  const env = target.env ?? process.env;
  switch (target.scope) {
    case "global":
      return globalConfigPath(env);
    case "profile":
      if (!target.profile) throw new OmpError("no profile given: name one with --profile <name>", { exitCode: EXIT_USAGE });
      return profilePath(target.profile, env);
    case "project":
      if (isUserOnly(key)) {
        throw new OmpError(`${key} is the user's alone: a project's .omp/config.yml cannot set it (omp ignores it there); set it without --project`, { exitCode: EXIT_USAGE });
      }
      return projectConfigPath(target.cwd ?? process.cwd());
  }
}

/** `omp config set` of the user's config.yml; see setSetting. */
export function setGlobalSetting(key: string, raw: string, env: NodeJS.ProcessEnv = process.env): unknown {
  return setSetting(key, raw, { scope: "global", env });
}

/**
 * `omp config set` and the /settings screen: parses `raw` for `key`, writes it into the target's
 * file and returns the stored value. The file is edited as a YAML document, so comments, key
 * order and the other keys survive; the result is validated before it replaces the file, atomically.
 */
export function setSetting(key: string, raw: string, target: SettingTarget): unknown {
  const value = parseSettingValue(key, raw);
  const path = settingFile(key, target);
  ensurePrivateDir(dirname(path));
  // Read, edit and write under one lock: two `config set` of different keys at once must both land.
  const write = () => withFileLockSync(lockPathBeside(path), { waitMs: 10_000, what: "another omp config set" }, () => writeSetting(path, key, value));
  // The user's own change to a project file keeps it as trusted as it was (core/trust/content-pins.ts).
  if (target.scope === "project") ownWrite(target.cwd ?? process.cwd(), path, write, target.env);
  else write();
  return value;
}

function writeSetting(path: string, key: string, value: unknown): void {
  const text = readConfigText(path) ?? "";
  const before = refusedKeys(text, path);

  const doc = parseYamlDocument(text, path);
  const keyPath = key.split(".");
  // `group:` with every child commented out parses as a null scalar; it has to become a mapping to take a child.
  for (let depth = 1; depth < keyPath.length; depth++) {
    const prefix = keyPath.slice(0, depth);
    const node = doc.getIn(prefix, true);
    if (isScalar(node) && node.value === null) doc.setIn(prefix, doc.createNode({}));
  }
  doc.setIn(keyPath, value);
  // A broker token makes the file a secret: it becomes the user's alone, whatever it was before.
  writeValidated(doc.toString(), path, before, key.startsWith("auth.broker.token"));
}

/**
 * The keys of the file the schema refuses (unknown to omp, say the original omp's): an edit keeps
 * them as they are but adds none. Throws on a file that is not a YAML mapping, which cannot be edited.
 */
function refusedKeys(text: string, path: string): Set<string> {
  return new Set(salvageConfig(Settings, parseYamlMapping(text, path)).setAside.map(({ key }) => key));
}

/**
 * `omp config unset`: removes `key` (a setting or a whole group) from the target's file, so a
 * lower layer's value or the default applies again; comments and the other keys stay. False when
 * it was not set there.
 */
export function unsetSetting(key: string, target: SettingTarget): boolean {
  const keyPath = key.split(".");
  const path = settingFile(key, target);
  if (readConfigText(path) === undefined) {
    checkSettingKey(key);
    return false;
  }
  const unset = () => withFileLockSync(lockPathBeside(path), { waitMs: 10_000, what: "another omp config set" }, () => {
    const text = readConfigText(path) ?? "";
    const before = refusedKeys(text, path);
    // A key omp does not know may still be removed from the file that has it: that is how it is mended.
    if (!before.has(key)) checkSettingKey(key);
    const doc = parseYamlDocument(text, path);
    if (!doc.hasIn(keyPath)) return false;
    doc.deleteIn(keyPath);
    writeValidated(doc.toString(), path, before);
    return true;
  });
  return target.scope === "project" ? ownWrite(target.cwd ?? process.cwd(), path, unset, target.env) : unset();
}

function writeValidated(updated: string, path: string, before: Set<string>, secret = false): void {
  const { setAside } = salvageConfig(Settings, parseYamlMapping(updated, path));
  const added = setAside.filter(({ key }) => !before.has(key));
  if (added.length > 0) throw configError(path, added.map(({ problem }) => problem));
  try {
    writeFileAtomic(path, updated, secret ? { mode: 0o600, forceMode: true } : {});
  } catch (error) {
    throw new OmpError(`cannot write ${displayPath(path)}: ${describeError(error)}`, { cause: error });
  }
}

/** A layer as `omp config get --show-origin` and /settings name it: its kind, and its file. */
export function sourceLabel(layer: SettingsLayer | undefined): string {
  if (!layer) return "default";
  return layer.path ? `${layer.kind} (${displayPath(layer.path)})` : layer.kind;
}


/**
 * Why the value just written to `file` is not the one in effect here, in words: a higher layer
 * sets the key too, or the file is an untrusted project's, whose value omp skips. Undefined when
 * `file` decides.
 */
export function notAppliedNote(key: string, file: string, loaded: LoadedSettings): string | undefined {
  const winner = loaded.sourceOf(key);
  if (winner?.path === file) return undefined;
  if (winner && loaded.layers.indexOf(winner) > loaded.layers.findIndex((layer) => layer.path === file)) return `${sourceLabel(winner)} also sets ${key}, and wins in this directory`;
  if (file === projectConfigPath(process.cwd())) return `this folder is not trusted, so omp skips ${key} from ${displayPath(file)} (\`omp trust\` allows it)`;
  return undefined;
}
