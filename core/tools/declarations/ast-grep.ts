import { pathAt, type ToolDeclaration } from "../declare.ts";
import { at, oneLine, str } from "./text.ts";

export const astGrep: ToolDeclaration = {
  name: "ast_grep",
  load: () => import("../ast-grep.ts").then((module) => module.astGrepTool),
  editor: (input, cwd) => ({ kind: "search", title: `ast-grep ${oneLine(str(input.pattern))}${input.path ? ` in ${str(input.path)}` : ""}`, locations: input.path ? at(input.path, cwd) : [] }),
  paths: pathAt("path", "read"),
};
