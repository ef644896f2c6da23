import { pathAt, type CodedToolDeclaration } from "../declare.ts";
import { abs, firstLine, str } from "./text.ts";

export const write: CodedToolDeclaration = {
  name: "write",
  order: 20,
  load: () => import("../write.ts").then((module) => module.writeTool),
  description: [
    "Create a file or replace a file's entire content. Missing parent directories are created; an existing file keeps its permissions.",
    "The write is atomic: the file is never left half-written.",
    "To change part of an existing file use edit instead, which is cheaper and shows a diff. Read a file before overwriting it.",
  ].join(" "),
  effect: "write",
  editor: (input, cwd) => ({ kind: "edit", title: `Write ${str(input.path)}`, diffs: [{ path: abs(input.path, cwd), oldText: null, newText: str(input.content) }] }),
  terminal: { argument: (input) => firstLine(input.path), result: "first-line" },
  paths: pathAt("path", "write"),
  // Claude's Edit rules cover every tool that changes files.
  claude: { names: ["Write"], rules: ["Edit"], fields: { path: "file_path" } },
};
