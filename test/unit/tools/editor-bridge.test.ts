// read, write, edit and bash through an editor's bridge (ACP fs/* and terminal/*): the editor's
// buffers are what the tools see and change, and commands run where the editor says.
import { expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { bashTool } from "../../../core/tools/bash.ts";
import { editTool } from "../../../core/tools/edit.ts";
import { readTool } from "../../../core/tools/read.ts";
import type { EditorBridge, EditorCommand } from "../../../core/tools/types.ts";
import { writeTool } from "../../../core/tools/write.ts";
import { context, scratch, textOf } from "./helpers.ts";

function editor(buffers: Map<string, string>, commands: EditorCommand[] = []): EditorBridge {
  return {
    readTextFile: async (path) => buffers.get(path) ?? readFileSync(path, "utf8"),
    writeTextFile: async (path, content) => void buffers.set(path, content),
    runCommand: async (command) => {
      commands.push(command);
      return { output: "line one\nline two\n", exitCode: 3, signal: null, truncated: false, timedOut: false };
    },
  };
}

test("read and edit see the unsaved buffer; edit and write change the buffer, not the disk", async () => {
  const cwd = scratch();
  const file = join(cwd, "a.txt");
  writeFileSync(file, "on disk\n");
  const buffers = new Map([[file, "in the buffer\nsecond\n"]]);
  const ctx = context(cwd, { editor: editor(buffers) });
  expect(textOf(await readTool.execute({ path: "a.txt" }, ctx))).toContain("in the buffer");
  const edited = await editTool.execute({ path: "a.txt", edits: [{ oldText: "second", newText: "changed" }] }, ctx);
  expect(edited.isError).toBeFalsy();
  expect(buffers.get(file)).toBe("in the buffer\nchanged\n");
  expect(readFileSync(file, "utf8")).toBe("on disk\n");
  const written = await writeTool.execute({ path: "new.txt", content: "fresh\n" }, ctx);
  expect(textOf(written)).toContain("Created new.txt");
  expect(buffers.get(join(cwd, "new.txt"))).toBe("fresh\n");
  expect(existsSync(join(cwd, "new.txt"))).toBe(false);
});

test("bash runs in the editor's terminal with the non-interactive environment; a non-zero exit is an error with its output", async () => {
  const cwd = scratch();
  const commands: EditorCommand[] = [];
  const result = await bashTool.execute({ command: "make test", timeout: 5 }, context(cwd, { editor: editor(new Map(), commands), toolCallId: "call_1" }));
  expect(commands).toHaveLength(1);
  expect(commands[0]).toMatchObject({ command: "make test", cwd, timeoutMs: 5000, toolCallId: "call_1", env: { PAGER: "cat", TERM: "dumb" } });
  expect(result.isError).toBe(true);
  expect(textOf(result)).toBe("line one\nline two\n\nCommand exited with code 3.");
  expect(result.details).toMatchObject({ command: "make test", exitCode: 3, totalLines: 2 });
});
