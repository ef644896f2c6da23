import { existsSync } from "node:fs";
import { join } from "node:path";
import { untrustedClaudeChanges } from "../extensions/claude-settings/read.ts";
import {
  type FolderTrust,
  clearSkippedForTrust,
  folderTrust,
  setFolderTrust,
  skippedForTrust,
  trustForThisRun,
} from "../trust/folder-trust.ts";
import { loadDotenv } from "../config/dotenv.ts";
import { type PartChange, changedParts, ensurePinned, pinParts } from "../trust/content-pins.ts";
import { loadModelsConfig } from "../config/models.ts";
import type { ModelsConfig } from "../config/models-schema.ts";
import type { Settings, SettingsInput } from "../config/settings-schema.ts";
import { type SettingsLayer, loadSettings } from "../config/settings.ts";
import { untrustedRuleSources } from "../rules/sources.ts";

/** What the user is asked in an untrusted folder: the folder, and what trusting it would change. */
export interface TrustQuestion {
  folder: string;
  changes: string[];
}

/** true or false is remembered for the folder; undefined (no answer) leaves it untrusted, unrecorded. */
export type TrustAsker = (question: TrustQuestion) => Promise<boolean | undefined>;

/** What the user is asked in a trusted folder whose code-running files changed since: the folder and each file's diff. */
export interface ChangesQuestion {
  folder: string;
  changes: PartChange[];
}

/** true: the changes are trusted (pinned); false or undefined: skipped this session, asked again next time. */
export type ChangesAsker = (question: ChangesQuestion) => Promise<boolean | undefined>;

export interface AgentConfigOptions {
  cwd: string;
  /** Filled from the `.env` files. */
  env: NodeJS.ProcessEnv;
  overlays?: string[];
  runtime?: SettingsInput;
  /** `--trust`: the folder is trusted for this run. */
  trustFlag?: boolean;
  /** The interactive mode's question; without it (print, json, rpc) nothing is asked. */
  ask?: TrustAsker;
  /** The interactive mode's question about changed files of a trusted folder; without it they are skipped. */
  askChanges?: ChangesAsker;
}

export interface AgentConfig {
  settings: Settings;
  modelsConfig: ModelsConfig;
  trust: FolderTrust;
  /** The settings files as loaded (for what is read per file: hooks). */
  layers: SettingsLayer[];
}

/**
 * Everything the agent reads from files before it starts (the `.env` files, config.yml, models.yml),
 * under the folder's trust. A folder nobody decided on, with something that trust would change, is
 * asked about once when there is someone to ask, and the answer is stored. What was skipped is
 * noted for untrustedNotice.
 */
export async function loadAgentConfig(options: AgentConfigOptions): Promise<AgentConfig> {
  const { cwd, env } = options;
  if (options.trustFlag) trustForThisRun();
  let trust = folderTrust(cwd, { env });
  if (!trust.trusted && trust.source === "default" && options.ask) {
    const changes = untrustedChanges(options);
    if (changes.length > 0) {
      const answer = await options.ask({ folder: trust.folder, changes });
      if (answer !== undefined) trust = { trusted: answer, source: "stored", folder: setFolderTrust(cwd, answer, env) };
      if (answer) pinParts(cwd, env);
    }
  }
  if (trust.trusted) {
    ensurePinned(cwd, env);
    const changes = options.askChanges ? changedParts(cwd, env) : [];
    if (changes.length > 0 && (await options.askChanges!({ folder: trust.folder, changes }))) pinParts(cwd, env);
  }
  loadDotenv({ cwd, env, trusted: trust.trusted });
  const { settings, layers } = loadSettings({ cwd, overlays: options.overlays, runtime: options.runtime, env, trusted: trust.trusted });
  const { config: modelsConfig } = loadModelsConfig({ cwd, env, trusted: trust.trusted });
  return { settings, modelsConfig, trust, layers };
}

/** What the project's files would change if the folder were trusted: the loaders' dry run, untrusted. */
function untrustedChanges(options: AgentConfigOptions): string[] {
  const env = { ...options.env };
  clearSkippedForTrust();
  loadDotenv({ cwd: options.cwd, env, trusted: false });
  loadSettings({ cwd: options.cwd, overlays: options.overlays, runtime: options.runtime, env, trusted: false });
  loadModelsConfig({ cwd: options.cwd, env, trusted: false });
  const changes = skippedForTrust();
  clearSkippedForTrust();
  // Loaded later (core/extensions/session.ts), but trust decides whether they run too.
  if (existsSync(join(options.cwd, ".omp", "extensions"))) changes.push("extensions in .omp/extensions");
  changes.push(...untrustedClaudeChanges(options.cwd));
  changes.push(...untrustedRuleSources(options.cwd, env));
  return changes;
}
