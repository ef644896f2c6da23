import { dirname } from "node:path";
import { isScalar } from "yaml";
import { displayPath, ensurePrivateDir, globalConfigPath } from "../paths.ts";
import { validateConfig } from "./validate-config.ts";
import { writeFileAtomic } from "../fs/atomic-write.ts";
import { lockPathBeside, withFileLockSync } from "../fs/file-lock.ts";
import { OmpError, describeError } from "../errors/omp-error.ts";
import { checkSettingKey, parseSettingValue } from "./settings-keys.ts";
import { Settings } from "./settings-schema.ts";
import { readConfigText } from "./config-file.ts";
import { parseYamlDocument, parseYamlMapping } from "./yaml-file.ts";

/**
 * `omp config set`: parses `raw` for `key`, writes it into the global config.yml and returns the
 * stored value. The file is edited as a YAML document, so comments, key order and the other keys
 * survive; the result is validated before it replaces the file, atomically.
 */
export function setGlobalSetting(key: string, raw: string, env: NodeJS.ProcessEnv = process.env): unknown {
  const value = parseSettingValue(key, raw);
  const path = globalConfigPath(env);
  ensurePrivateDir(dirname(path));
  // Read, edit and write under one lock: two `config set` of different keys at once must both land.
  withFileLockSync(lockPathBeside(path), { waitMs: 10_000, what: "another omp config set" }, () => writeSetting(path, key, value));
  return value;
}

function writeSetting(path: string, key: string, value: unknown): void {
  const text = readConfigText(path) ?? "";
  // Refuse to edit a file that is already invalid (this also rules out a top-level list or scalar).
  validateConfig(Settings, parseYamlMapping(text, path), path);

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
  writeValidated(doc.toString(), path, key.startsWith("auth.broker.token"));
}

/**
 * `omp config unset`: removes `key` (a setting or a whole group) from the global config.yml, so
 * its default applies again; comments and the other keys stay. False when it was not set there.
 */
export function unsetGlobalSetting(key: string, env: NodeJS.ProcessEnv = process.env): boolean {
  const keyPath = checkSettingKey(key);
  const path = globalConfigPath(env);
  if (readConfigText(path) === undefined) return false;
  return withFileLockSync(lockPathBeside(path), { waitMs: 10_000, what: "another omp config set" }, () => {
    const text = readConfigText(path) ?? "";
    validateConfig(Settings, parseYamlMapping(text, path), path);
    const doc = parseYamlDocument(text, path);
    if (!doc.hasIn(keyPath)) return false;
    doc.deleteIn(keyPath);
    writeValidated(doc.toString(), path);
    return true;
  });
}

function writeValidated(updated: string, path: string, secret = false): void {
  validateConfig(Settings, parseYamlMapping(updated, path), path);
  try {
    writeFileAtomic(path, updated, secret ? { mode: 0o600, forceMode: true } : {});
  } catch (error) {
    throw new OmpError(`cannot write ${displayPath(path)}: ${describeError(error)}`, { cause: error });
  }
}
