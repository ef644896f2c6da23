import { z } from "zod";
import { maskKey } from "../auth/mask.ts";
import { unwrap } from "./schema-walk.ts";
import { Settings } from "./settings-schema.ts";
import { isUserOnly } from "./settings.ts";

/**
 * Every setting as the /settings screen and omp://settings.md show it, read off the schema: its
 * kind, allowed values, default and `.describe()` text. A setting added to the schema appears
 * here with no other change.
 */

export type SettingKind = "boolean" | "enum" | "number" | "string" | "list" | "map" | "other";

export interface SettingInfo {
  key: string;
  kind: SettingKind;
  description: string;
  /** enum: its values; map whose values are an enum (tools.approval): those values, set per entry as `key.<name>`. */
  choices?: string[];
  /** number: its range in words (`whole number 1 to 3600`). */
  range?: string;
  default: unknown;
  /** A project's file cannot give it (settings.ts): written only to the user's files. */
  userOnly: boolean;
  /** Read where it is used, so a change holds in the running session; otherwise from the next start. */
  live: boolean;
}

/**
 * Settings the code reads through the session's shared settings object at the moment of use
 * (Runtime.reloadSettings keeps that object current): the gate's per-tool policy, the read and
 * bash tools' settings (bash.timeoutSeconds is copied at start), the compaction threshold,
 * web_fetch's limits. Everything else is read
 * once at start; the screen says a restart is needed for those.
 */
const LIVE = new Set([
  "tools.approval",
  // Applied by the interactive mode when /settings writes them.
  "theme",
  "approvalMode",
  "read.defaultLimit",
  "bashInterceptor.enabled",
  "bash.autoBackgroundSeconds",
  "bash.maxLogBytes",
  "compaction.reserveTokens",
  "compaction.keepRecentTokens",
  "compaction.thresholdPercent",
  "web.nativeSearch",
  "web.allowHosts",
  "web.maxBytes",
  "web.timeoutSeconds",
  "web.cacheTtlSeconds",
  // Read by retain, recall, reflect, memory:// and /memory at each use.
  "mnemopi.scoping",
  "mnemopi.recallLimit",
  "mnemopi.dbPath",
]);

/** The `.describe()` text of a schema, found on it or on any wrapper (default, optional) around it. */
function descriptionOf(schema: z.ZodType): string {
  let current: z.ZodType | undefined = schema;
  while (current) {
    if (current.description) return current.description;
    const inner: z.ZodType | undefined = current instanceof z.ZodDefault || current instanceof z.ZodPrefault || current instanceof z.ZodOptional || current instanceof z.ZodNullable ? (current.unwrap() as z.ZodType) : undefined;
    current = inner;
  }
  return "";
}

function kindOf(inner: z.ZodType): { kind: SettingKind; choices?: string[]; range?: string } {
  if (inner instanceof z.ZodBoolean) return { kind: "boolean" };
  if (inner instanceof z.ZodNumber) {
    const { minValue: min, maxValue: max } = inner;
    const bounded = (value: number | null) => value !== null && Number.isFinite(value) && Math.abs(value) < Number.MAX_SAFE_INTEGER;
    const what = inner.isInt ? "whole number" : "number";
    const range = bounded(min) && bounded(max) ? `${what} ${min} to ${max}` : bounded(min) ? `${what} ≥ ${min}` : bounded(max) ? `${what} ≤ ${max}` : what;
    return { kind: "number", range };
  }
  if (inner instanceof z.ZodString) return { kind: "string" };
  if (inner instanceof z.ZodEnum) return { kind: "enum", choices: inner.options.map(String) };
  if (inner instanceof z.ZodArray) return { kind: "list" };
  if (inner instanceof z.ZodRecord) {
    const value = unwrap(inner.valueType as z.ZodType);
    return value instanceof z.ZodEnum ? { kind: "map", choices: value.options.map(String) } : { kind: "map" };
  }
  if (inner instanceof z.ZodUnion) {
    const members = (inner.options as readonly z.ZodType[]).map((option) => kindOf(unwrap(option)));
    return { kind: "other", range: members.map((member) => member.choices?.join(" | ") ?? member.kind).join(" | ") };
  }
  return { kind: "other" };
}

let catalog: SettingInfo[] | undefined;

/** Every leaf setting in schema order. */
export function settingCatalog(): SettingInfo[] {
  if (catalog) return catalog;
  const defaults = Settings.parse({}) as Record<string, unknown>;
  const found: SettingInfo[] = [];
  const walk = (schema: z.ZodType, key: string, defaultValue: unknown) => {
    const inner = unwrap(schema);
    if (inner instanceof z.ZodObject) {
      for (const [name, child] of Object.entries(inner.shape as Record<string, z.ZodType>)) {
        walk(child, key ? `${key}.${name}` : name, (defaultValue as Record<string, unknown> | undefined)?.[name]);
      }
      return;
    }
    found.push({ key, ...kindOf(inner), description: descriptionOf(schema), default: defaultValue, userOnly: isUserOnly(key), live: LIVE.has(key) });
  };
  walk(Settings, "", defaults);
  catalog = found;
  return found;
}

/** Settings that hold a secret: the screen and `omp config` show them masked (`omp config get <key>` prints one asked for by name). */
const SECRET_SETTINGS: ReadonlySet<string> = new Set(["auth.broker.token", "collab.relayToken"]);

export const isSecretSetting = (key: string): boolean => SECRET_SETTINGS.has(key);

/** A value as it may be shown: a secret setting's masked. */
export function shownSetting(key: string, value: unknown): unknown {
  return isSecretSetting(key) && typeof value === "string" ? maskKey(value) : value;
}

/** A value as the screen and `omp config` show it: strings bare, the rest as JSON, unset as (unset). */
export function formatSetting(value: unknown): string {
  if (value === undefined) return "(unset)";
  return typeof value === "string" ? value : JSON.stringify(value);
}
