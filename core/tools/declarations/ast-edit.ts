import { pathAt, type CodedToolDeclaration } from "../declare.ts";
import { at, oneLine, str } from "./text.ts";

export const astEdit: CodedToolDeclaration = {
  name: "ast_edit",
  order: 170,
  load: () => import("../ast-edit.ts").then((module) => module.astEditTool),
  description: "Structural rewrite (ast-grep): pattern → rewrite; diff, apply writes.",
  loadMode: "discoverable",
  effect: "read",
  editor: (input, cwd) => ({ kind: input.apply ? "edit" : "search", title: `ast-edit ${oneLine(str(input.pattern))} → ${oneLine(str(input.rewrite))}`, locations: input.path ? at(input.path, cwd) : [] }),
  // A rewrite applied outside the project must ask like an edit there, auto-accept mode or not.
  paths: pathAt("path", "apply"),
};
