import { z } from "zod";
import { OmpError } from "../errors/omp-error.ts";
import { closest } from "./config-error.ts";
import { Settings } from "./settings-schema.ts";
import { schemaAt, unwrap } from "./schema-walk.ts";
import { EXIT_USAGE } from "../errors/exit-codes.ts";

/** Every settable key as a dotted path (`compaction.enabled`), in schema order. */
export function settingKeys(): string[] {
  const keys: string[] = [];
  const walk = (schema: z.ZodType, prefix: string) => {
    const inner = unwrap(schema);
    if (inner instanceof z.ZodObject) {
      for (const [key, child] of Object.entries(inner.shape as Record<string, z.ZodType>)) walk(child, prefix ? `${prefix}.${key}` : key);
    } else {
      keys.push(prefix);
    }
  };
  walk(Settings, "");
  return keys;
}

/** A dotted key as a path, or an OmpError naming the nearest real key. Groups (`compaction`) are allowed. */
export function checkSettingKey(key: string): string[] {
  const path = key.split(".");
  if (key !== "" && schemaAt(Settings, path)) return path;
  const keys = settingKeys();
  const hint = closest(key, keys);
  throw new OmpError(`unknown setting "${key}"${hint ? ` (did you mean ${hint}?)` : ""}; \`omp config list\` shows them all`, {
    exitCode: EXIT_USAGE,
  });
}

const TRUE = new Set(["true", "yes", "on", "1"]);
const FALSE = new Set(["false", "no", "off", "0"]);

/**
 * The value `omp config set` stores for `raw`, read by the key's type: booleans as
 * true/false/yes/no/on/off/1/0, numbers, enum values exactly, lists as JSON or comma-separated.
 * Range checks are left to validating the whole file, whose message names the file too.
 */
export function parseSettingValue(key: string, raw: string): unknown {
  const path = checkSettingKey(key);
  const schema = schemaAt(Settings, path)!;
  const text = raw.trim();
  const reject = (expected: string) =>
    new OmpError(`${key}: got ${JSON.stringify(raw)}, expected ${expected}`, { exitCode: EXIT_USAGE });

  if (schema instanceof z.ZodObject) {
    const leaves = settingKeys().filter((k) => k.startsWith(`${key}.`));
    throw new OmpError(`"${key}" is a group of settings; set one of ${leaves.join(", ")}`, { exitCode: EXIT_USAGE });
  }
  if (schema instanceof z.ZodBoolean) {
    const lower = text.toLowerCase();
    if (TRUE.has(lower)) return true;
    if (FALSE.has(lower)) return false;
    throw reject("true or false");
  }
  if (schema instanceof z.ZodNumber) {
    const value = Number(text);
    if (text === "" || !Number.isFinite(value)) throw reject("a number");
    return value;
  }
  if (schema instanceof z.ZodEnum) {
    const options = schema.options.map(String);
    if (options.includes(text)) return text;
    throw reject(`one of ${options.join(", ")}`);
  }
  // A value that may be a word or a list (sandbox.network): a JSON list is a list, anything else a word.
  if (schema instanceof z.ZodUnion && text.startsWith("[")) {
    const value = parseJson(text);
    if (!Array.isArray(value)) throw reject('a word or a JSON list such as ["a","b"]');
    return value;
  }
  if (schema instanceof z.ZodArray) {
    if (text.startsWith("[")) {
      const value = parseJson(text);
      if (!Array.isArray(value)) throw reject('a JSON list such as ["a","b"]');
      return value;
    }
    return text === "" ? [] : text.split(",").map((item) => item.trim());
  }
  return text;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
