import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { ConfigCache } from "../../config/config-cache.ts";
import type { Mapping } from "../../config/config-file.ts";
import { parseLenientJson } from "../../fs/lenient-json.ts";
import type { ClaudeSettingsFile } from "./schema.ts";
import { displayPath, expandHome, homeDir } from "../../paths.ts";
import { type PermissionRule, type RuleBehavior, parseRule } from "../../permissions/rules.ts";
import { projectRoot } from "../../fs/project-root.ts";
import { describeZodError } from "../../errors/zod-issues.ts";

/** Which of Claude Code's settings files: `~/.claude/settings.json`, `.claude/settings.json`, `.claude/settings.local.json`. */
export type ClaudeScope = "user" | "project" | "local";

export interface ClaudeSettingsLayer {
  scope: ClaudeScope;
  file: string;
  /**
   * A project file in a folder the user has not trusted: only its deny and ask rules apply (they
   * can only make things safer); its hooks, allow rules, env and directories do not.
   */
  trusted: boolean;
  hooks?: Record<string, unknown>;
  rules: PermissionRule[];
  additionalDirectories: string[];
  env: Record<string, string>;
}

export interface ClaudeSettings {
  /** Lowest precedence first: user, project, local. */
  layers: ClaudeSettingsLayer[];
  /** One line per problem, naming the file; the rest of the file still applies. */
  problems: string[];
}

const BEHAVIORS: RuleBehavior[] = ["deny", "ask", "allow"];

/** The settings files in effect for `cwd`, lowest precedence first (Claude's order: local > project > user). */
export function claudeSettingsFiles(cwd: string): { scope: ClaudeScope; file: string }[] {
  const home = homeDir();
  const user = join(home, ".claude", "settings.json");
  const files: { scope: ClaudeScope; file: string }[] = [{ scope: "user", file: user }];
  // The project is the repository the folder is in (or the folder), as for Claude Code's plugin settings.
  const project = join(projectRoot(resolve(cwd)), ".claude");
  if (project !== join(home, ".claude")) {
    files.push({ scope: "project", file: join(project, "settings.json") }, { scope: "local", file: join(project, "settings.local.json") });
  }
  return files.filter(({ file }) => existsSync(file));
}

/**
 * Claude Code's settings for a session in `cwd`. zod and the rule parser load only when a file
 * exists. `trusted`: whether the project folder is trusted (core/trust).
 */
export function readClaudeSettings(cwd: string, trusted: (file: string) => boolean, env: NodeJS.ProcessEnv = process.env): ClaudeSettings {
  const result: ClaudeSettings = { layers: [], problems: [] };
  const files = claudeSettingsFiles(cwd);
  if (files.length === 0) return result;
  // Most Claude Code users have ~/.claude/settings.json: an unchanged file comes from the config
  // cache, so zod loads only when one changed.
  const cache = ConfigCache.open("claude-settings", env);
  try {
    for (const { scope, file } of files) {
      let data: ClaudeSettingsFile;
      try {
        data = cache.values(file, readFileSync(file), (text) => validate(file, text)) as ClaudeSettingsFile;
      } catch (error) {
        result.problems.push((error as Error).message);
        continue;
      }
      result.layers.push(layerOf(scope, file, data, trusted, result.problems));
    }
  } finally {
    cache.save();
  }
  return result;
}

/** The file's settings, checked; throws the line for the user when it cannot be used. */
function validate(file: string, text: string): Mapping {
  const where = displayPath(file);
  let raw: unknown;
  try {
    raw = parseLenientJson(text);
  } catch (error) {
    throw new Error(`${where}: not readable JSON (${(error as Error).message}); ignored`);
  }
  const { ClaudeSettingsFile } = require("./schema.ts") as typeof import("./schema.ts");
  const parsed = ClaudeSettingsFile.safeParse(raw);
  if (!parsed.success) {
    throw new Error(`${where}: ${describeZodError(parsed.error, "the file")}; ignored`);
  }
  return parsed.data as Mapping;
}

/** One file's hooks, rules (bad ones reported into `problems`), directories and env. */
function layerOf(scope: ClaudeScope, file: string, data: ClaudeSettingsFile, trusted: (file: string) => boolean, problems: string[]): ClaudeSettingsLayer {
  const where = displayPath(file);
  // `/path` rules are relative to the folder holding the file's `.claude`.
  const base = dirname(dirname(file));
  const rules: PermissionRule[] = [];
  for (const behavior of BEHAVIORS) {
    for (const text of data.permissions?.[behavior] ?? []) {
      const rule = typeof text === "string" ? parseRule(text) : undefined;
      if (!rule) {
        problems.push(`${where}: permissions.${behavior}: ${JSON.stringify(text)} is not a rule (Tool or Tool(specifier)); ignored`);
        continue;
      }
      rules.push({ behavior, text: (text as string).trim(), ...rule, file, base });
    }
  }
  const directories = [...(data.permissions?.additionalDirectories ?? []), ...(data.additionalDirectories ?? [])]
    .filter((dir): dir is string => typeof dir === "string" && dir.trim() !== "")
    .map((dir) => resolve(base, expandHome(dir)));
  const env = Object.fromEntries(Object.entries(data.env ?? {}).map(([key, value]) => [key, String(value)]));
  return {
    scope,
    file,
    trusted: scope === "user" || trusted(file),
    ...(data.hooks ? { hooks: data.hooks } : {}),
    rules,
    additionalDirectories: directories,
    env,
  };
}

/** The rules that apply: every trusted layer's, and an untrusted project's deny and ask rules. */
export function effectiveRules(settings: ClaudeSettings): PermissionRule[] {
  return settings.layers.flatMap((layer) => (layer.trusted ? layer.rules : layer.rules.filter((rule) => rule.behavior !== "allow")));
}

/** `env` of the trusted layers, a higher layer's value winning. */
export function effectiveEnv(settings: ClaudeSettings): Record<string, string> {
  return Object.assign({}, ...settings.layers.filter((layer) => layer.trusted).map((layer) => layer.env));
}

/**
 * What the project's Claude settings files would add once the folder is trusted, for the trust
 * question: read as plain JSON, without the schema (this runs before the first frame).
 */
export function untrustedClaudeChanges(cwd: string): string[] {
  const changes: string[] = [];
  for (const { scope, file } of claudeSettingsFiles(cwd)) {
    if (scope === "user") continue;
    let raw: unknown;
    try {
      raw = parseLenientJson(readFileSync(file, "utf8"));
    } catch {
      continue;
    }
    const data = (raw ?? {}) as { hooks?: unknown; env?: unknown; permissions?: { allow?: unknown; additionalDirectories?: unknown } };
    const parts = [data.hooks ? "hooks" : "", Array.isArray(data.permissions?.allow) && data.permissions.allow.length > 0 ? "allow rules" : "", data.env ? "env" : "", data.permissions?.additionalDirectories ? "additionalDirectories" : ""].filter(Boolean);
    if (parts.length > 0) changes.push(`${displayPath(file)}: ${parts.join(", ")}`);
  }
  return changes;
}
