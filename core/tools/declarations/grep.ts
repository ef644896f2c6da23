import { pathAt, type CodedToolDeclaration } from "../declare.ts";
import type { GrepDetails } from "../grep.ts";
import { plural } from "../../plural.ts";
import { searchRow } from "./rows.ts";
import { at, oneLine, str } from "./text.ts";

export const GREP_DEFAULT_LIMIT = 100;
export const GREP_MAX_LINE_CHARS = 500;

export const grep: CodedToolDeclaration = {
  name: "grep",
  order: 60,
  load: () => import("../grep.ts").then((module) => module.grepTool),
  description: [
    "Search file contents by regex (ripgrep; Rust syntax: escape ( ) [ ] { } . * + ? or set literal).",
    "Searches the working directory by default, skipping gitignored and binary files and .git; hidden files included.",
    `Returns matching lines with line numbers, grouped by file, ${GREP_DEFAULT_LIMIT} per call; the output gives the next offset. Lines cut at ${GREP_MAX_LINE_CHARS} characters.`,
    // path, glob, type and outputMode explain themselves in the schema: not said twice (request economy).
    "Use it instead of grep or rg in bash.",
  ].join(" "),
  effect: "read",
  editor: (input, cwd) => ({ kind: "search", title: `grep ${oneLine(str(input.pattern))}${input.path ? ` in ${str(input.path)}` : ""}`, locations: input.path ? at(input.path, cwd) : [] }),
  terminal: { ...searchRow, note: (d: Partial<GrepDetails>) => (typeof d.totalMatches === "number" ? `${plural(d.totalMatches, "match", "matches")} in ${plural(Number(d.filesWithMatches), "file")}` : undefined) },
  paths: pathAt("path", "read"),
  claude: { names: ["Grep"], rules: ["Read"], fields: { ignoreCase: "-i", outputMode: "output_mode", context: "-C", limit: "head_limit" }, absolute: ["path"] },
};
