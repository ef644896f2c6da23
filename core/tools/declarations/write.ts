import { pathAt, type ToolDeclaration } from "../declare.ts";
import { abs, firstLine, str } from "./text.ts";

export const write: ToolDeclaration = {
  name: "write",
  load: () => import("../write.ts").then((module) => module.writeTool),
  editor: (input, cwd) => ({ kind: "edit", title: `Write ${str(input.path)}`, diffs: [{ path: abs(input.path, cwd), oldText: null, newText: str(input.content) }] }),
  terminal: { argument: (input) => firstLine(input.path), result: "first-line" },
  paths: pathAt("path", "write"),
  // Claude's Edit rules cover every tool that changes files.
  claude: { names: ["Write"], rules: ["Edit"], fields: { path: "file_path" } },
};
