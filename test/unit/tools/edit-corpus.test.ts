// The edit corpus through each format's tool, in process: every rule of the engine on a real
// request shape. test/e2e/edit-corpus.test.ts runs the same corpus through dist/omp.
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { FileReadStore } from "../../../core/tools/edit/read-store.ts";
import { applyPatchTool, hashlineEditTool, patchEditTool } from "../../../core/tools/edit/tools.ts";
import { editTool } from "../../../core/tools/edit.ts";
import type { ToolDefinition } from "../../../core/tools/types.ts";
import { CASES, FORMATS, type Format, casePath, judge, requestFor, setUpCase } from "../../support/edit-corpus.ts";
import { context, scratch, textOf } from "./helpers.ts";

const TOOLS: Record<Format, ToolDefinition<any>> = { replace: editTool, patch: patchEditTool, hashline: hashlineEditTool, apply_patch: applyPatchTool };

describe.each(FORMATS)("edit corpus in the %s format", (format) => {
  test.each(CASES.map((c) => [c.name, c] as const))("%s", async (_name, c) => {
    const request = requestFor(c, format);
    if (!request) return;
    const dir = scratch();
    setUpCase(dir, c);
    const fileReads = new FileReadStore();
    fileReads.recordFile(join(dir, casePath(c)));
    if (c.changedAfterRead !== undefined) writeFileSync(join(dir, c.name, c.file), c.changedAfterRead);
    const tool = TOOLS[format];
    const result = await tool.execute(tool.schema.parse(request.arguments), context(dir, { fileReads }));
    const outcome = judge(dir, c, { text: textOf(result), isError: result.isError === true });
    expect({ outcome, text: textOf(result) }).toMatchObject({ outcome: c.expected === "refuse" ? "refused" : "applied" });
  });
});
