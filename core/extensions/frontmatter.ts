/**
 * YAML frontmatter of SKILL.md and command files, read leniently: real files have unquoted
 * descriptions with colons in them, lists written either way, and sometimes no frontmatter at all.
 * Flat `key: value` frontmatter (nearly every real file) is read here without the YAML library,
 * whose loading costs milliseconds of start-up; anything richer goes to the library, and when even
 * that fails, the flat reading is kept and the problem reported.
 */

import { parserHazard, parseYamlValue } from "../config/yaml-file.ts";

export type FrontmatterValue = string | boolean | string[];

export interface Frontmatter {
  data: Record<string, FrontmatterValue>;
  body: string;
  /** What was wrong with the frontmatter; the file still loads with what could be read. */
  problem?: string;
}

const OPEN = /^\uFEFF?---[ \t]*\r?\n/;
const CLOSE = /^(?:---|\.\.\.)[ \t]*\r?$/m;

/** Splits `text` into frontmatter data and body. Never throws. */
export function parseFrontmatter(text: string): Frontmatter {
  const open = OPEN.exec(text);
  if (!open) return { data: {}, body: text.replace(/^\uFEFF/, "") };
  const rest = text.slice(open[0].length);
  const close = CLOSE.exec(rest);
  if (!close) return { data: {}, body: rest, problem: "the frontmatter starts with --- but has no closing --- line" };
  const yaml = rest.slice(0, close.index);
  const body = rest.slice(close.index + close[0].length).replace(/^\r?\n/, "");
  const flat = parseFlat(yaml);
  if (flat.complete) return { data: flat.data, body };
  try {
    return { data: fromYaml(yaml), body };
  } catch (error) {
    const message = error instanceof Error ? error.message.split("\n")[0] : String(error);
    return { data: flat.data, body, problem: `invalid YAML frontmatter (${message}); read it line by line instead` };
  }
}

function fromYaml(yaml: string): Record<string, FrontmatterValue> {
  // The file may come from an untrusted folder: nesting that would take the parser seconds is refused first.
  const hazard = parserHazard(yaml);
  if (hazard) throw new Error(hazard);
  const value: unknown = parseYamlValue(yaml);
  if (value === null || value === undefined) return {};
  if (typeof value !== "object" || Array.isArray(value)) throw new Error("the frontmatter is not a mapping of keys");
  const data: Record<string, FrontmatterValue> = {};
  for (const [key, raw] of Object.entries(value as Record<string, unknown>)) {
    const converted = toValue(raw);
    if (converted !== undefined) data[key] = converted;
  }
  return data;
}

function toValue(raw: unknown): FrontmatterValue | undefined {
  if (raw === null || raw === undefined) return undefined;
  if (typeof raw === "boolean") return raw;
  if (Array.isArray(raw)) return raw.filter((item) => item !== null && item !== undefined).map((item) => (typeof item === "object" ? JSON.stringify(item) : String(item)));
  if (typeof raw === "object") return JSON.stringify(raw);
  return String(raw);
}

/** A plain or quoted scalar; `# comment` after a plain one is dropped, as YAML does. */
function scalar(text: string): FrontmatterValue {
  const value = text.trim();
  if (value.length >= 2 && ((value.startsWith('"') && value.endsWith('"')) || (value.startsWith("'") && value.endsWith("'")))) {
    const inner = value.slice(1, -1);
    return value.startsWith("'") ? inner.replace(/''/g, "'") : inner.replace(/\\(["\\n t])/g, (_, c: string) => (c === "n" ? "\n" : c === "t" ? "\t" : c));
  }
  const plain = value.replace(/\s+#.*$/, "");
  if (plain === "true") return true;
  if (plain === "false") return false;
  return plain;
}

/**
 * The flat subset: `key: scalar`, `key: [a, b]`, `key:` followed by `- item` lines, comments.
 * `complete` is false when the text uses anything else (block scalars, nested maps, anchors,
 * continuation lines), which the YAML library then reads.
 */
function parseFlat(yaml: string): { data: Record<string, FrontmatterValue>; complete: boolean } {
  const data: Record<string, FrontmatterValue> = {};
  let complete = true;
  let listKey: string | undefined;
  /** The key whose plain value the next odd lines continue (the recovery of a broken frontmatter). */
  let textKey: string | undefined;
  for (const line of yaml.split(/\r?\n/)) {
    if (line.trim() === "" || /^\s*#/.test(line)) {
      if (textKey !== undefined && line.trim() === "") data[textKey] += "\n";
      continue;
    }
    const item = /^\s*-\s+(.*)$/.exec(line) ?? /^\s*-$/.exec(line);
    if (item && listKey !== undefined) {
      const value = scalar(item[1] ?? "");
      if (value !== "") (data[listKey] as string[]).push(String(value));
      continue;
    }
    const pair = /^([A-Za-z_][\w.-]*)\s*:(?:\s+(.*)|\s*)$/.exec(line);
    // Inside an open <example> block, or on a line that is no key, the text goes on: agent files
    // write multi-line descriptions with <example> blocks of `user: "..."` lines unindented.
    if (!pair || (textKey !== undefined && openTag(String(data[textKey])))) {
      complete = false;
      if (textKey !== undefined) data[textKey] = `${String(data[textKey]).replace(/\n+$/, "")}\n${line.trim()}`;
      continue;
    }
    const key = pair[1]!;
    const raw = (pair[2] ?? "").trim();
    listKey = undefined;
    textKey = undefined;
    if (raw === "") {
      data[key] = [];
      listKey = key;
    } else if (raw.startsWith("[") && raw.endsWith("]")) {
      data[key] = splitFlowList(raw.slice(1, -1)).map((part) => String(scalar(part))).filter(Boolean);
    } else if (/^[|>&*!{]/.test(raw) || (/^["']/.test(raw) && !/["']\s*$/.test(raw))) {
      complete = false;
    } else {
      data[key] = scalar(raw);
      if (typeof data[key] === "string") textKey = key;
    }
  }
  for (const [key, value] of Object.entries(data)) if (typeof value === "string") data[key] = value.trimEnd();
  // `key:` with nothing under it is unset, not an empty list.
  for (const [key, value] of Object.entries(data)) if (Array.isArray(value) && value.length === 0) delete data[key];
  return { data, complete };
}

/** Whether `text` opens an <example> or <commentary> it has not closed yet. */
function openTag(text: string): boolean {
  for (const tag of ["example", "commentary"]) {
    const opened = text.split(`<${tag}>`).length - 1;
    const closed = text.split(`</${tag}>`).length - 1;
    if (opened > closed) return true;
  }
  return false;
}

function splitFlowList(text: string): string[] {
  const parts: string[] = [];
  let current = "";
  let quote: string | undefined;
  for (const char of text) {
    if (quote) {
      if (char === quote) quote = undefined;
    } else if (char === '"' || char === "'") quote = char;
    else if (char === ",") {
      parts.push(current);
      current = "";
      continue;
    }
    current += char;
  }
  if (current.trim()) parts.push(current);
  return parts;
}

/** A frontmatter value as one string (lists joined), or undefined. */
export function stringValue(value: FrontmatterValue | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (Array.isArray(value)) return value.join(", ");
  return String(value);
}
