import { pathAt, type CodedToolDeclaration } from "../declare.ts";
import { paged } from "./rows.ts";
import { at, firstLine, str } from "./text.ts";

export const READ_DEFAULT_LIMIT = 2000;
export const READ_MAX_LINE_CHARS = 2000;

export const read: CodedToolDeclaration = {
  name: "read",
  order: 10,
  load: () => import("../read.ts").then((module) => module.readTool),
  description: [
    "Read a file or list a directory.",
    `Text comes back as numbered lines (N<tab>text, 1-based); the numbers are not part of the file: never copy them into edit's oldText. Up to ${READ_DEFAULT_LIMIT} lines per call, lines cut at ${READ_MAX_LINE_CHARS} characters; page with offset and limit (the output gives the next offset).`,
    "Images (PNG, JPEG, GIF, WebP) come back as images; other binary files are described. A directory lists its entries, subdirectories ending with /.",
    "Use it instead of cat/head/tail; read a file before editing it.",
    "Also: http(s) URLs; PDF, DOCX, PPTX, XLSX, CSV, EPUB, .ipynb as text; a.zip/.tar/.tgz as folders (a.zip:inner/file); db.sqlite (:table, ?q=SELECT…); mcp://<server>/<resource uri>; omp:// docs; artifact://<id>; skill://<name>[/file]; agent://<id>, history://<id> (a subagent's output, transcript); local://<name> (session scratch); issue://<N>, pr://<N>[/diff]. Selectors: path:N, :A-B, :A+C, :A-B,C-D (PDF: pages); :raw unconverted; :conflicts (git conflict hunks as conflict://<id>).",
  ].join(" "),
  effect: "read",
  editor: (input, cwd) => {
    const offset = typeof input.offset === "number" ? input.offset : undefined;
    return { kind: "read", title: `Read ${str(input.path)}${offset ? ` (from line ${offset})` : ""}`, locations: at(input.path, cwd, offset) };
  },
  terminal: { argument: (input) => firstLine(input.path) + (typeof input.offset === "number" ? `:${input.offset}` : ""), note: paged, result: "on-expand" },
  paths: pathAt("path", "read"),
  claude: { names: ["Read"], fields: { path: "file_path" } },
};
