import type { Document } from "yaml";
import { OmpError } from "../errors/omp-error.ts";
import { displayPath } from "../paths.ts";
import { MAX_CONFIG_BYTES, type Mapping, isMapping, tooBig } from "./config-file.ts";
import { configError, describeFound } from "./config-error.ts";
import { EXIT_USAGE } from "../errors/exit-codes.ts";

/** Aliases resolved per document, weighted by the size of what they copy: yaml's own guard against "billion laughs". */
const MAX_ALIAS_COUNT = 100;

function refused(path: string, why: string): OmpError {
  return configError(path, [`refused: ${why}; remove the anchors and aliases (&name / *name) or flatten the file`]);
}

/**
 * Runs the parser on untrusted text (a cloned project's config): a document nested deep enough to
 * overflow the stack, or aliases that expand exponentially, become a config error, not a crash.
 */
function guarded<T>(path: string, parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    if (error instanceof RangeError) throw refused(path, "the YAML is nested too deeply");
    if (error instanceof ReferenceError && /alias/i.test(error.message)) {
      throw refused(path, "its YAML aliases expand to too much data (an alias bomb)");
    }
    throw error;
  }
}

/** Deeper flow nesting (`[[[...`) than any config needs; the parser takes seconds on a few thousand levels. */
const MAX_FLOW_DEPTH = 100;

/** How deep `[` and `{` nest outside quoted strings and comments, stopping once past `limit`. */
export function flowDepth(text: string, limit: number = MAX_FLOW_DEPTH): number {
  let depth = 0;
  let deepest = 0;
  for (let i = 0; i < text.length && deepest <= limit; i++) {
    const char = text[i];
    if ((char === "'" || char === '"') && (i === 0 || /[\s[{,]/.test(text[i - 1]!))) {
      // A quoted scalar (not the apostrophe in `it's`) ends at the same quote: '' escapes one in single quotes, \ in double quotes.
      for (i++; i < text.length; i++) {
        if (char === '"' && text[i] === "\\") i++;
        else if (text[i] === char && !(char === "'" && text[i + 1] === "'")) break;
        else if (char === "'" && text[i] === "'") i++;
      }
    } else if (char === "#" && (i === 0 || /\s/.test(text[i - 1]!))) {
      while (i < text.length && text[i] !== "\n") i++;
    } else if (char === "[" || char === "{") {
      deepest = Math.max(deepest, ++depth);
    } else if ((char === "]" || char === "}") && depth > 0) {
      depth--;
    }
  }
  return deepest;
}

/**
 * Why `text` must not reach the YAML parser, or null: flow nesting thousands deep takes it seconds.
 * For every YAML an untrusted folder may carry (frontmatter too), besides the alias limit of toJS.
 */
export function parserHazard(text: string): string | null {
  return flowDepth(text) > MAX_FLOW_DEPTH ? `its [ ] and { } nest more than ${MAX_FLOW_DEPTH} levels deep` : null;
}

/**
 * The library's own warnings ("Keys with collection values will be stringified") go to
 * process.emitWarning, raw, on every run; omp never lets it print: errors are reported as ours.
 */
const QUIET = "error" as const;

/**
 * Plain YAML to a JavaScript value, for text that is not a config file (frontmatter, a listing's
 * look at a project file): the one place besides parseYamlDocument where the library parses, with
 * its warnings silenced the same way. Throws on a syntax error.
 */
export function parseYamlValue(text: string): unknown {
  const { parse } = require("yaml") as typeof import("yaml");
  return parse(text, { logLevel: QUIET, maxAliasCount: MAX_ALIAS_COUNT });
}

/** Parses YAML keeping comments and layout, for edits; a syntax error names the line and column. */
export function parseYamlDocument(text: string, path: string): Document {
  if (text.length > MAX_CONFIG_BYTES) throw tooBig(path, text.length);
  const hazard = parserHazard(text);
  if (hazard) throw refused(path, hazard);
  // Loaded on first use: most runs have no config file, and the parser costs milliseconds to load.
  const { parseDocument } = require("yaml") as typeof import("yaml");
  const doc = guarded(path, () => parseDocument(text, { prettyErrors: false, logLevel: QUIET }));
  const error = doc.errors[0];
  if (error) {
    const offset = culprit(text, error.code, error.pos[0]);
    const lineStart = text.lastIndexOf("\n", offset - 1) + 1;
    const lineEnd = text.indexOf("\n", offset);
    const line = text.slice(0, offset).split("\n").length;
    const column = offset - lineStart + 1;
    const snippet = `${text.slice(lineStart, lineEnd === -1 ? undefined : lineEnd).trimEnd()}\n${" ".repeat(column - 1)}^`;
    throw new OmpError(`${displayPath(path)}:${line}:${column}: invalid YAML: ${error.message.split("\n")[0]}\n${snippet}`, { exitCode: EXIT_USAGE });
  }
  return doc;
}

/**
 * Where the mistake the parser found is, which is not always where it noticed it: an unclosed
 * `[`, `{` or quote is reported where the file goes on without it (so at the opener), and a line
 * indented under a `key: value` is reported at that value (so at the line itself).
 */
function culprit(text: string, code: string, at: number): number {
  if (code === "BLOCK_AS_IMPLICIT_KEY") {
    const indent = (from: number) => /^[ \t]*/.exec(text.slice(from))![0].length;
    const lineStart = text.lastIndexOf("\n", at - 1) + 1;
    const next = text.indexOf("\n", at);
    const match = next === -1 ? null : /[^\s]/.exec(text.slice(next + 1));
    if (!match) return at;
    const nextLine = text.lastIndexOf("\n", next + 1 + match.index - 1) + 1;
    return indent(nextLine) > indent(lineStart) ? next + 1 + match.index : at;
  }
  if (code !== "BAD_INDENT" && code !== "MISSING_CHAR") return at;
  const openers: number[] = [];
  let quote = -1;
  for (let i = 0; i < at && i < text.length; i++) {
    const char = text[i]!;
    if (quote !== -1) {
      if (char === "\\" && text[quote] === '"') i++;
      else if (char === "'" && text[quote] === "'" && text[i + 1] === "'") i++;
      else if (char === text[quote]) quote = -1;
    } else if ((char === '"' || char === "'") && (i === 0 || /[\s[{,:]/.test(text[i - 1]!))) quote = i;
    else if (char === "#" && (i === 0 || /\s/.test(text[i - 1]!))) while (i < text.length && text[i] !== "\n") i++;
    else if (char === "[" || char === "{") openers.push(i);
    else if ((char === "]" || char === "}") && openers.length > 0) openers.pop();
  }
  return quote !== -1 ? quote : (openers.at(-1) ?? at);
}

/**
 * The YAML mapping in `text`. An empty file is an empty mapping. Keys with an empty value (`key:`
 * with its children commented out) count as unset rather than as null, which no setting accepts.
 */
export function parseYamlMapping(text: string, path: string): Mapping {
  const doc = parseYamlDocument(text, path);
  const data: unknown = guarded(path, () => doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT }));
  if (data === null || data === undefined) return {};
  if (!isMapping(data)) throw configError(path, [`got ${describeFound(data)} at the top level, expected a mapping of keys`]);
  return dropEmpty(data);
}

function dropEmpty(mapping: Mapping): Mapping {
  const result: Mapping = {};
  for (const [key, value] of Object.entries(mapping)) {
    if (value === null) continue;
    result[key] = isMapping(value) ? dropEmpty(value) : value;
  }
  return result;
}
