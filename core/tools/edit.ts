import { declared } from "./declare.ts";
import { edit as editDeclaration } from "./declarations/edit.ts";
import { z } from "zod";
import type { FileChange } from "./edit/changes.ts";
import type { EditDetails } from "./edit/engine.ts";
import { applyAndCheck, previewParsed } from "./edit/tools.ts";
import type { ToolDefinition } from "./types.ts";

export type { EditDetails } from "./edit/engine.ts";

const editSchema = z.object({
  oldText: z.string().describe("Exact text to replace, without line-number prefixes"),
  newText: z.string().describe("Replacement (empty deletes)"),
  replaceAll: z.boolean().optional().describe("Replace every occurrence"),
});

const schema = z.object({
  path: z.string().describe("Relative, absolute or ~ path"),
  edits: z
    .array(editSchema)
    .min(1)
    .describe("Applied in order; all or none"),
});

/** The edit as the engine takes it: one file, its replacements in order. */
export function replaceChanges(input: z.infer<typeof schema>): FileChange[] {
  const ops = input.edits.map((edit) => ({ kind: "replace" as const, old: edit.oldText, new: edit.newText, ...(edit.replaceAll ? { all: true } : {}) }));
  return [{ kind: "update", path: input.path, ops }];
}

/** The replace edit: old text to new text, found through the engine's tolerant matching (edit/match.ts). */
export const editTool: ToolDefinition<typeof schema, EditDetails> = {
  ...declared(editDeclaration),
  schema,
  async execute(input, context) {
    return applyAndCheck(replaceChanges(input), context);
  },
  preview: (input, context) => previewParsed(() => replaceChanges(input), context),
};
