import type { CodedToolDeclaration } from "../declare.ts";
import { plural } from "../../plural.ts";

export const todo: CodedToolDeclaration = {
  name: "todo",
  order: 90,
  load: ({ todoStore }) => import("../todo.ts").then((module) => module.createTodoTool(todoStore ?? module.createTodoStore())),
  description: [
    "Keep a todo list for multi-step work so you and the user can see progress. Each call replaces the whole list: send every item, with its status.",
    "Use it for tasks with three or more steps; skip it for trivial ones. Mark an item in_progress before starting it (only one at a time) and completed as soon as it is done, not in batches at the end.",
  ].join(" "),
  // It only changes what the UI shows, so approval modes treat it like a read.
  effect: "read",
  editor: () => ({ kind: "think", title: "Update the todo list" }),
  terminal: { argument: (input) => (Array.isArray(input.todos) ? plural(input.todos.length, "item") : ""), result: "list" },
  claude: { names: ["TodoWrite"] },
};
