import { pathAt, type CodedToolDeclaration } from "../declare.ts";
import { at, oneLine, str } from "./text.ts";

export const astGrep: CodedToolDeclaration = {
  name: "ast_grep",
  order: 160,
  load: () => import("../ast-grep.ts").then((module) => module.astGrepTool),
  description: "Structural code search (ast-grep): TS/JS/Python/Go/Rust.",
  loadMode: "discoverable",
  effect: "read",
  editor: (input, cwd) => ({ kind: "search", title: `ast-grep ${oneLine(str(input.pattern))}${input.path ? ` in ${str(input.path)}` : ""}`, locations: input.path ? at(input.path, cwd) : [] }),
  paths: pathAt("path", "read"),
};
