import { pathAt, type CodedToolDeclaration } from "../declare.ts";
import { abs, firstLine, str } from "./text.ts";

export const write: CodedToolDeclaration = {
  name: "write",
  order: 20,
  load: () => import("../write.ts").then((module) => module.writeTool),
  description: [
    "Create a file or replace its whole content, atomically; parent directories are created, permissions kept.",
    "To change part of a file use edit. Read an existing file before overwriting it.",
  ].join(" "),
  effect: "write",
  editor: (input, cwd) => ({ kind: "edit", title: `Write ${str(input.path)}`, diffs: [{ path: abs(input.path, cwd), oldText: null, newText: str(input.content) }] }),
  terminal: { argument: (input) => firstLine(input.path), result: "first-line" },
  paths: pathAt("path", "write"),
  // Claude's Edit rules cover every tool that changes files.
  claude: { names: ["Write"], rules: ["Edit"], fields: { path: "file_path" } },
};
