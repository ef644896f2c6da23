import type { ToolDeclaration } from "../declare.ts";
import { plural } from "../../plural.ts";

export const todo: ToolDeclaration = {
  name: "todo",
  load: ({ todoStore }) => import("../todo.ts").then((module) => module.createTodoTool(todoStore ?? module.createTodoStore())),
  editor: () => ({ kind: "think", title: "Update the todo list" }),
  terminal: { argument: (input) => (Array.isArray(input.todos) ? plural(input.todos.length, "item") : ""), result: "list" },
  claude: { names: ["TodoWrite"] },
};
