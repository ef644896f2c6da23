import { pathAt, type CodedToolDeclaration } from "../declare.ts";
import { at, str } from "./text.ts";

export const lsp: CodedToolDeclaration = {
  name: "lsp",
  order: 150,
  load: () => import("../lsp.ts").then((module) => module.lspTool),
  description: "Language server: type errors, definition, references, hover (type/docs), symbols, rename, quick fixes.",
  loadMode: "discoverable",
  effect: "read",
  editor: (input, cwd) => ({
    kind: input.apply ? "edit" : "search",
    title: `lsp ${str(input.op)}${input.path ? ` ${str(input.path)}` : ""}${input.symbol ? ` ${str(input.symbol)}` : ""}`,
    locations: input.path ? at(input.path, cwd, typeof input.line === "number" ? input.line : undefined) : [],
  }),
  // A rename applied outside the project must ask like an edit there.
  paths: pathAt("path", "apply"),
};
