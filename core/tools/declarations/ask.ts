import type { ToolDeclaration } from "../declare.ts";
import { plural } from "../../plural.ts";
import { items, oneLine, str } from "./text.ts";

export const ask: ToolDeclaration = {
  name: "ask",
  load: () => import("../ask.ts").then((module) => module.askTool),
  editor: (input) => ({ kind: "other", title: `Ask: ${oneLine(str(items(input.questions)[0]?.question))}` }),
  terminal: { argument: (input) => (Array.isArray(input.questions) ? plural(input.questions.length, "question") : ""), result: "list" },
  claude: { names: ["AskUserQuestion"] },
};
