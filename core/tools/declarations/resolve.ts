import type { CodedToolDeclaration } from "../declare.ts";
import { changed } from "./rows.ts";
import { firstLine, str } from "./text.ts";

export const resolve: CodedToolDeclaration = {
  name: "resolve",
  order: 240,
  load: () => import("../resolve.ts").then((module) => module.resolveTool),
  description: "Settle one git merge-conflict hunk (conflict://<id> from read <file>:conflicts): keep ours, theirs, both, the diff3 base, or your edited text. Other hunks keep their ids.",
  loadMode: "discoverable",
  effect: "write",
  editor: (input) => ({ kind: "edit", title: `Resolve ${str(input.path)} with ${str(input.pick)}` }),
  terminal: { argument: (input) => `${firstLine(input.path)} ${firstLine(input.pick)}`, note: changed },
};
