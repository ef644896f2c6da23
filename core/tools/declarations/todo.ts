import type { CodedToolDeclaration } from "../declare.ts";
import { plural } from "../../plural.ts";

export const todo: CodedToolDeclaration = {
  name: "todo",
  order: 90,
  load: ({ todoStore }) => import("../todo.ts").then((module) => module.createTodoTool(todoStore ?? module.createTodoStore())),
  description: [
    "A todo list the user sees, for work of three or more steps. Each call replaces the whole list.",
    "Mark one item at a time in_progress before starting it, and completed as soon as it is done.",
  ].join(" "),
  // It only changes what the UI shows, so approval modes treat it like a read.
  effect: "read",
  editor: () => ({ kind: "think", title: "Update the todo list" }),
  terminal: { argument: (input) => (Array.isArray(input.todos) ? plural(input.todos.length, "item") : ""), result: "list" },
  claude: { names: ["TodoWrite"] },
};
