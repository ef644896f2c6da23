import { EXIT_FAILURE, EXIT_USAGE } from "../../core/errors/exit-codes.ts";
import { getPath } from "../../core/config/merge.ts";
import { loadSettings } from "../../core/config/settings.ts";
import { checkSettingKey, settingKeys } from "../../core/config/settings-keys.ts";
import { type SettingTarget, notAppliedNote, settingFile, sourceLabel, unsetSetting } from "../../core/config/settings-write.ts";
import { writeSettingValue } from "../shared/setting-write.ts";
import {
  agentDbPath,
  agentDir,
  displayPath,
  globalConfigPath,
  globalModelsPath,
  projectConfigPath,
  projectModelsPath,
  sessionsRoot,
} from "../../core/paths.ts";
import { untrustedNotice } from "../../core/trust/folder-trust.ts";
import { writeStdout } from "../shared/write.ts";
import { OmpError } from "../../core/errors/omp-error.ts";
import { formatSetting, shownSetting } from "../../core/config/settings-catalog.ts";


export interface ConfigFlags {
  json?: boolean;
  /** list, get: the profile laid over the global config; set, unset: the profile's file is written. */
  profile?: string;
  /** set, unset: the project's .omp/config.yml is written. */
  project?: boolean;
  /** get: the value's layer after it. */
  showOrigin?: boolean;
}

type JsonFlag = ConfigFlags;

/** Where set and unset write: the global config.yml unless --profile or --project says otherwise. */
function targetOf(options: ConfigFlags): SettingTarget {
  if (options.project && options.profile) throw new OmpError("--project and --profile name two different files: give one", { exitCode: EXIT_USAGE });
  if (options.project) return { scope: "project", cwd: process.cwd() };
  return options.profile ? { scope: "profile", profile: options.profile } : { scope: "global" };
}

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows.map((row) => row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!))).join("  ")).join("\n") + "\n";
}

/** `omp config list`: every setting's effective value and the layer it comes from. */
export async function runConfigList(options: JsonFlag): Promise<number> {
  const loaded = loadSettings({ profile: options.profile });
  const keys = settingKeys();
  if (options.json) {
    const entries = keys.map((key) => {
      const layer = loaded.sourceOf(key);
      return [key, { value: shownSetting(key, getPath(loaded.settings, key.split("."))) ?? null, source: layer?.kind ?? "default", file: layer?.path ?? null }];
    });
    await writeStdout(`${JSON.stringify(Object.fromEntries(entries), null, 2)}\n`);
    return 0;
  }
  const rows = keys.map((key) => [key, formatSetting(shownSetting(key, getPath(loaded.settings, key.split(".")))), sourceLabel(loaded.sourceOf(key))]);
  await writeStdout(table([["KEY", "VALUE", "SOURCE"], ...rows]));
  // What an untrusted project's config.yml set but does not get: not shown above, so said here.
  const notice = untrustedNotice(process.cwd());
  if (notice) process.stderr.write(`${notice}\n`);
  return 0;
}

/** `omp config get <key>`: the effective value; exit 1 without output when the key is unset, as `git config` does. */
export async function runConfigGet(key: string, options: JsonFlag): Promise<number> {
  const path = checkSettingKey(key);
  const loaded = loadSettings({ profile: options.profile });
  const value = getPath(loaded.settings, path);
  if (value === undefined) return EXIT_FAILURE;
  const origin = options.showOrigin ? loaded.sourceOf(key) : undefined;
  if (options.json) {
    await writeStdout(`${JSON.stringify(options.showOrigin ? { value, source: origin?.kind ?? "default", file: origin?.path ?? null } : value)}\n`);
  } else {
    const text = typeof value === "object" ? JSON.stringify(value, null, options.showOrigin ? undefined : 2) : String(value);
    await writeStdout(`${text}${options.showOrigin ? `\t${sourceLabel(origin)}` : ""}\n`);
  }
  return 0;
}

/** `omp config set <key> <value...>`: writes the global config.yml; words after the key are joined with spaces. */
export async function runConfigSet(key: string, words: string[], options: JsonFlag): Promise<number> {
  const { value, file } = await writeSettingValue(key, words.join(" "), targetOf(options));
  if (options.json) {
    await writeStdout(`${JSON.stringify({ key, value: shownSetting(key, value), file })}\n`);
  } else {
    await writeStdout(`${key} = ${formatSetting(shownSetting(key, value))} (${displayPath(file)})\n`);
  }
  const note = notAppliedNote(key, file, loadSettings({ ...(options.profile ? { profile: options.profile } : {}) }));
  if (note) process.stderr.write(`omp: note: ${note}\n`);
  return 0;
}

/** `omp config unset <key>`: the default (or a project's value) applies again. */
export async function runConfigUnset(key: string, options: JsonFlag): Promise<number> {
  const target = targetOf(options);
  const removed = unsetSetting(key, target);
  const file = settingFile(key, target);
  if (options.json) await writeStdout(`${JSON.stringify({ key, removed, file })}\n`);
  else await writeStdout(removed ? `${key} removed from ${displayPath(file)}\n` : `${key} was not set in ${displayPath(file)}\n`);
  return 0;
}

/** `omp config path`: where omp reads and writes its files (absolute, for scripts). */
export async function runConfigPath(options: JsonFlag): Promise<number> {
  const cwd = process.cwd();
  const paths = {
    agentDir: agentDir(),
    config: globalConfigPath(),
    projectConfig: projectConfigPath(cwd),
    models: globalModelsPath(),
    projectModels: projectModelsPath(cwd),
    credentials: agentDbPath(),
    sessions: sessionsRoot(),
  };
  if (options.json) {
    await writeStdout(`${JSON.stringify(paths, null, 2)}\n`);
    return 0;
  }
  await writeStdout(table(Object.entries(paths).map(([name, path]) => [name, path])));
  return 0;
}
