import { declared } from "./declare.ts";
import { todo as todoDeclaration } from "./declarations/todo.ts";
import { z } from "zod";
import { errorResult, textResult } from "./format.ts";
import type { ToolDefinition } from "./types.ts";

export const TodoStatus = z.enum(["pending", "in_progress", "completed"]);
export type TodoStatus = z.infer<typeof TodoStatus>;

export const TodoItem = z.object({
  content: z.string().min(1).describe("Short imperative sentence"),
  status: TodoStatus,
});
export type TodoItem = z.infer<typeof TodoItem>;

/** The session's todo list. The agent owns one per session; UIs subscribe to show it. */
export interface TodoStore {
  get(): readonly TodoItem[];
  set(todos: readonly TodoItem[]): void;
  /** Returns an unsubscribe function. */
  subscribe(listener: (todos: readonly TodoItem[]) => void): () => void;
}

export function createTodoStore(initial: readonly TodoItem[] = []): TodoStore {
  let todos: readonly TodoItem[] = initial.map((item) => ({ ...item }));
  const listeners = new Set<(todos: readonly TodoItem[]) => void>();
  return {
    get: () => todos,
    set(next) {
      todos = next.map((item) => ({ ...item }));
      for (const listener of listeners) listener(todos);
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

const MARKS: Record<TodoStatus, string> = { completed: "[x]", in_progress: "[>]", pending: "[ ]" };

export function renderTodos(todos: readonly TodoItem[]): string {
  if (todos.length === 0) return "Todo list is empty.";
  const done = todos.filter((t) => t.status === "completed").length;
  const lines = todos.map((t) => `${MARKS[t.status]} ${t.content}`);
  return `${lines.join("\n")}\n(${done}/${todos.length} completed)`;
}

const schema = z.object({
  todos: z.array(TodoItem).describe("The whole new list; [] clears it"),
});

export function createTodoTool(store: TodoStore): ToolDefinition<typeof schema> {
  return {
    ...declared(todoDeclaration),
    schema,
    async execute(input) {
      const active = input.todos.filter((t) => t.status === "in_progress");
      if (active.length > 1) {
        return errorResult(
          `${active.length} items are in_progress (${active.map((t) => JSON.stringify(t.content)).join(", ")}); at most one may be. Mark the others pending or completed and send the list again. The list was not changed.`,
        );
      }
      store.set(input.todos);
      return textResult(renderTodos(store.get()), { todos: store.get() });
    },
  };
}
