import type { ToolDeclaration } from "../declare.ts";
import { changed } from "./rows.ts";
import { firstLine, str } from "./text.ts";

export const resolve: ToolDeclaration = {
  name: "resolve",
  load: () => import("../resolve.ts").then((module) => module.resolveTool),
  editor: (input) => ({ kind: "edit", title: `Resolve ${str(input.path)} with ${str(input.pick)}` }),
  terminal: { argument: (input) => `${firstLine(input.path)} ${firstLine(input.pick)}`, note: changed },
};
