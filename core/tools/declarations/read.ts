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
    `Text files come back with line numbers (N<tab>, 1-based); these numbers are not part of the file, so never copy them into edit oldText. At most ${READ_DEFAULT_LIMIT} lines are returned per call and lines longer than ${READ_MAX_LINE_CHARS} characters are cut; use offset and limit to page through big files (the output says which offset to use next).`,
    "PNG, JPEG, GIF and WebP images are returned as images you can look at. Other binary files are described, not dumped.",
    "A directory path returns its entries sorted, with a trailing / on subdirectories.",
    "Prefer this over cat/head/tail in bash. Read a file before editing it.",
    "A path mcp://<server>/<resource uri> reads a resource of that MCP server (the mcp_resources tool lists them, as such paths).",
    "Also: http(s) URLs; PDF, DOCX, PPTX, XLSX, CSV, EPUB, .ipynb as text; a.zip/.tar/.tgz as folders (a.zip:inner/file); db.sqlite (:table, ?q=SELECT…); omp:// docs; artifact://<id>; skill://<name>[/file]; agent://<id> (a subagent's output), history://<id> (its transcript); local://<name> (session scratch, write takes it too); issue://<N>, pr://<N>[/diff] (GitHub). Selectors: path:N, :A-B, :A+C, :A-B,C-D (PDF: pages); :raw unconverted, no line numbers; :conflicts lists git conflict hunks as conflict://<id>.",
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
