import type { CodedToolDeclaration } from "../declare.ts";
import { plural } from "../../plural.ts";
import { items, oneLine, str } from "./text.ts";

export const ask: CodedToolDeclaration = {
  name: "ask",
  order: 180,
  load: () => import("../ask.ts").then((module) => module.askTool),
  description: "Ask the user when a decision is theirs and you cannot find out yourself. They may answer in their own words; unanswered, use your judgement and say what you assumed.",
  // It changes nothing: plan mode and every approval mode let it run.
  effect: "read",
  editor: (input) => ({ kind: "other", title: `Ask: ${oneLine(str(items(input.questions)[0]?.question))}` }),
  terminal: { argument: (input) => (Array.isArray(input.questions) ? plural(input.questions.length, "question") : ""), result: "list" },
  claude: { names: ["AskUserQuestion"] },
};
