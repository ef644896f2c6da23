import { getPath } from "../core/config/merge.ts";
import { type SettingsLayer, loadSettings } from "../core/config/settings.ts";
import { checkSettingKey, settingKeys } from "../core/config/settings-keys.ts";
import { setGlobalSetting, unsetGlobalSetting } from "../core/config/settings-write.ts";
import {
  agentDbPath,
  agentDir,
  displayPath,
  globalConfigPath,
  globalModelsPath,
  projectConfigPath,
  projectModelsPath,
  sessionsRoot,
} from "../core/paths.ts";
import { untrustedNotice } from "../core/trust/folder-trust.ts";
import { writeStdout } from "./write.ts";
import { maskKey } from "../core/auth/mask.ts";
import { EXIT_FAILURE } from "../core/errors/exit-codes.ts";

interface JsonFlag {
  json?: boolean;
}

function sourceLabel(layer: SettingsLayer | undefined): string {
  if (!layer) return "default";
  return layer.path ? `${layer.kind} (${displayPath(layer.path)})` : layer.kind;
}

/** Settings that hold a secret: listed and echoed masked (`omp config get` still prints them, when asked by name). */
const SECRET_SETTINGS = new Set(["auth.broker.token"]);

const shown = (key: string, value: unknown) => (SECRET_SETTINGS.has(key) && typeof value === "string" ? maskKey(value) : value);

function formatValue(value: unknown): string {
  if (value === undefined) return "(unset)";
  return typeof value === "string" ? value : JSON.stringify(value);
}

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows.map((row) => row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!))).join("  ")).join("\n") + "\n";
}

/** `omp config list`: every setting's effective value and the layer it comes from. */
export async function runConfigList(options: JsonFlag): Promise<number> {
  const loaded = loadSettings();
  const keys = settingKeys();
  if (options.json) {
    const entries = keys.map((key) => {
      const layer = loaded.sourceOf(key);
      return [key, { value: shown(key, getPath(loaded.settings, key.split("."))) ?? null, source: layer?.kind ?? "default", file: layer?.path ?? null }];
    });
    await writeStdout(`${JSON.stringify(Object.fromEntries(entries), null, 2)}\n`);
    return 0;
  }
  const rows = keys.map((key) => [key, formatValue(shown(key, getPath(loaded.settings, key.split(".")))), sourceLabel(loaded.sourceOf(key))]);
  await writeStdout(table([["KEY", "VALUE", "SOURCE"], ...rows]));
  // What an untrusted project's config.yml set but does not get: not shown above, so said here.
  const notice = untrustedNotice(process.cwd());
  if (notice) process.stderr.write(`${notice}\n`);
  return 0;
}

/** `omp config get <key>`: the effective value; exit 1 without output when the key is unset, as `git config` does. */
export async function runConfigGet(key: string, options: JsonFlag): Promise<number> {
  const path = checkSettingKey(key);
  const value = getPath(loadSettings().settings, path);
  if (value === undefined) return EXIT_FAILURE;
  if (options.json) await writeStdout(`${JSON.stringify(value)}\n`);
  else await writeStdout(`${typeof value === "object" ? JSON.stringify(value, null, 2) : String(value)}\n`);
  return 0;
}

/** `omp config set <key> <value...>`: writes the global config.yml; words after the key are joined with spaces. */
export async function runConfigSet(key: string, words: string[], options: JsonFlag): Promise<number> {
  // A model omp cannot find would only fail at the next start, far from this typo.
  if (key === "model") await checkModel(words.join(" "));
  const value = setGlobalSetting(key, words.join(" "));
  const file = globalConfigPath();
  if (options.json) {
    await writeStdout(`${JSON.stringify({ key, value: shown(key, value), file })}\n`);
  } else {
    await writeStdout(`${key} = ${formatValue(shown(key, value))} (${displayPath(file)})\n`);
  }
  const winner = loadSettings().sourceOf(key);
  if (winner && winner.kind !== "global") {
    process.stderr.write(`omp: note: ${sourceLabel(winner)} also sets ${key}, and wins in this directory\n`);
  }
  return 0;
}

async function checkModel(pattern: string): Promise<void> {
  const { knownModels, resolveModel, withLocalModels } = await import("../core/agent/models.ts");
  const { loadModelsConfig } = await import("../core/config/models.ts");
  const env = process.env;
  const known = knownModels(loadModelsConfig({ cwd: process.cwd(), env }).config, env);
  try {
    resolveModel(pattern, known);
  } catch {
    resolveModel(pattern, await withLocalModels(known, env));
  }
}

/** `omp config unset <key>`: the default (or a project's value) applies again. */
export async function runConfigUnset(key: string, options: JsonFlag): Promise<number> {
  const removed = unsetGlobalSetting(key);
  const file = globalConfigPath();
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
