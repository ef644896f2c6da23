import { describe, expect, test } from "bun:test";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { LS_MAX_ENTRIES } from "../../../core/tools/declarations/ls.ts";
import { lsTool } from "../../../core/tools/ls.ts";
import { createTodoStore, createTodoTool, type TodoItem } from "../../../core/tools/todo.ts";
import { context, scratch, textOf } from "./helpers.ts";

describe("ls", () => {
  test("directories first, then files with sizes and links with targets, each sorted", async () => {
    const dir = scratch();
    mkdirSync(join(dir, "zeta"));
    mkdirSync(join(dir, "alpha"));
    writeFileSync(join(dir, "b.txt"), "x".repeat(2048));
    writeFileSync(join(dir, ".env"), "A=1\n");
    symlinkSync("alpha", join(dir, "link"));
    symlinkSync("missing", join(dir, "dangling"));
    const result = await lsTool.execute({}, context(dir));
    expect(textOf(result)).toBe(
      [
        "./ (2 directories, 4 files)",
        "alpha/",
        "zeta/",
        ".env      4 B",
        "b.txt     2.0 KB",
        "dangling -> missing",
        "link -> alpha/",
      ].join("\n"),
    );
  });

  test("a file or a missing path is an error", async () => {
    const dir = scratch();
    writeFileSync(join(dir, "f"), "");
    const file = await lsTool.execute({ path: "f" }, context(dir));
    expect(file.isError).toBe(true);
    expect(textOf(file)).toBe("f is a file, not a directory; use read to see its content.");
    const missing = await lsTool.execute({ path: "nowhere" }, context(dir));
    expect(textOf(missing)).toBe("Directory not found: nowhere");
  });

  test("an empty directory says so and big ones are capped", async () => {
    const dir = scratch();
    mkdirSync(join(dir, "empty"));
    expect(textOf(await lsTool.execute({ path: "empty" }, context(dir)))).toBe("empty/ is empty.");
    mkdirSync(join(dir, "big"));
    for (let i = 0; i < LS_MAX_ENTRIES + 5; i++) writeFileSync(join(dir, "big", `f${String(i).padStart(4, "0")}`), "");
    const text = textOf(await lsTool.execute({ path: "big" }, context(dir)));
    expect(text).toContain("f0999");
    expect(text).not.toContain("f1000");
    expect(text).toEndWith(`[Showing ${LS_MAX_ENTRIES} of ${LS_MAX_ENTRIES + 5} entries. Use find with a pattern to narrow down.]`);
  });
});

describe("todo", () => {
  const ctx = context("/");

  test("replaces the list in the store and renders it", async () => {
    const store = createTodoStore([{ content: "old item", status: "pending" }]);
    const tool = createTodoTool(store);
    const todos: TodoItem[] = [
      { content: "Read the code", status: "completed" },
      { content: "Fix the bug", status: "in_progress" },
      { content: "Run the tests", status: "pending" },
    ];
    const result = await tool.execute({ todos }, ctx);
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toBe("[x] Read the code\n[>] Fix the bug\n[ ] Run the tests\n(1/3 completed)");
    expect(store.get()).toEqual(todos);
  });

  test("more than one in_progress item is refused and the list is kept", async () => {
    const store = createTodoStore([{ content: "keep me", status: "pending" }]);
    const result = await createTodoTool(store).execute(
      {
        todos: [
          { content: "a", status: "in_progress" },
          { content: "b", status: "in_progress" },
        ],
      },
      ctx,
    );
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('2 items are in_progress ("a", "b"); at most one may be');
    expect(store.get()).toEqual([{ content: "keep me", status: "pending" }]);
  });

  test("an empty list clears it; subscribers see every change", async () => {
    const store = createTodoStore();
    const seen: number[] = [];
    const unsubscribe = store.subscribe((todos) => seen.push(todos.length));
    const tool = createTodoTool(store);
    await tool.execute({ todos: [{ content: "x", status: "pending" }] }, ctx);
    const cleared = await tool.execute({ todos: [] }, ctx);
    expect(textOf(cleared)).toBe("Todo list is empty.");
    unsubscribe();
    await tool.execute({ todos: [{ content: "y", status: "pending" }] }, ctx);
    expect(seen).toEqual([1, 0]);
  });

  test("the store keeps its own copy", async () => {
    const store = createTodoStore();
    const todos: TodoItem[] = [{ content: "x", status: "pending" }];
    await createTodoTool(store).execute({ todos }, ctx);
    todos[0]!.status = "completed";
    expect(store.get()[0]!.status).toBe("pending");
  });

  test("the schema rejects unknown statuses and empty content", () => {
    const tool = createTodoTool(createTodoStore());
    expect(tool.schema.safeParse({ todos: [{ content: "x", status: "done" }] }).success).toBe(false);
    expect(tool.schema.safeParse({ todos: [{ content: "", status: "pending" }] }).success).toBe(false);
  });
});
