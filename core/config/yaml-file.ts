import type { Document } from "yaml";
import { OmpError } from "../errors/omp-error.ts";
import { displayPath } from "../paths.ts";
import { type Mapping, isMapping, readConfigText } from "./config-file.ts";
import { EXIT_BAD_CONFIG, configError, describeFound } from "./config-error.ts";

/** Parses YAML keeping comments and layout, for edits; a syntax error names the line and column. */
export function parseYamlDocument(text: string, path: string): Document {
  // Loaded on first use: most runs have no config file, and the parser costs milliseconds to load.
  const { parseDocument } = require("yaml") as typeof import("yaml");
  const doc = parseDocument(text, { prettyErrors: true });
  const error = doc.errors[0];
  if (error) {
    // prettyErrors appends " at line L, column C:" and a snippet with a caret; keep the snippet, move the position up front.
    const [summary = error.message, snippet = ""] = error.message.split(/ at line \d+, column \d+:\n/);
    const position = error.linePos?.[0];
    const where = position ? `${displayPath(path)}:${position.line}:${position.col}` : displayPath(path);
    const context = snippet.replace(/^\n+/, "").trimEnd();
    throw new OmpError(`${where}: invalid YAML: ${summary}${context ? `\n${context}` : ""}`, { exitCode: EXIT_BAD_CONFIG });
  }
  return doc;
}

/**
 * The YAML mapping in `text`. An empty file is an empty mapping. Keys with an empty value (`key:`
 * with its children commented out) count as unset rather than as null, which no setting accepts.
 */
export function parseYamlMapping(text: string, path: string): Mapping {
  const data: unknown = parseYamlDocument(text, path).toJS();
  if (data === null || data === undefined) return {};
  if (!isMapping(data)) throw configError(path, [`got ${describeFound(data)} at the top level, expected a mapping of keys`]);
  return dropEmpty(data);
}

/** Reads and parses a YAML mapping; undefined when the file does not exist. */
export function readYamlMapping(path: string): Mapping | undefined {
  const text = readConfigText(path);
  return text === undefined ? undefined : parseYamlMapping(text, path);
}

function dropEmpty(mapping: Mapping): Mapping {
  const result: Mapping = {};
  for (const [key, value] of Object.entries(mapping)) {
    if (value === null) continue;
    result[key] = isMapping(value) ? dropEmpty(value) : value;
  }
  return result;
}
