import { pathAt, type ToolDeclaration } from "../declare.ts";
import { at, oneLine, str } from "./text.ts";

export const astEdit: ToolDeclaration = {
  name: "ast_edit",
  load: () => import("../ast-edit.ts").then((module) => module.astEditTool),
  editor: (input, cwd) => ({ kind: input.apply ? "edit" : "search", title: `ast-edit ${oneLine(str(input.pattern))} → ${oneLine(str(input.rewrite))}`, locations: input.path ? at(input.path, cwd) : [] }),
  // A rewrite applied outside the project must ask like an edit there, auto-accept mode or not.
  paths: pathAt("path", "apply"),
};
