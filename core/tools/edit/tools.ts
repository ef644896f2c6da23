import { declared } from "../declare.ts";
import { applyPatch as applyPatchDeclaration } from "../declarations/apply-patch.ts";
import { editModes } from "../declarations/edit.ts";
import { z } from "zod";
import { errorResult } from "../format.ts";
import type { ToolContext, ToolDefinition, ToolResult } from "../types.ts";
import { PatchSyntaxError, parseApplyPatch, parseHunks } from "./apply-patch.ts";
import { existsSync, readFileSync } from "node:fs";
import { displayPath } from "../paths.ts";
import { afterFileWrite } from "../post-write.ts";
import type { FileChange } from "./changes.ts";
import { type EditDetails, type EngineContext, applyChanges, previewChanges } from "./engine.ts";
import type { ChangePreview } from "../change-preview.ts";
import { HashlineSyntaxError, parseHashline } from "./hashline.ts";

/** The edit formats other than the replace edit (../edit.ts); each parses its input and hands it to the one engine. */

/**
 * Applies through the one engine, then takes each written file through the post-write step
 * (language-server diagnostics, post-write.ts): the files are written whatever it finds.
 */
export async function applyAndCheck(changes: FileChange[], context: ToolContext, tags = false): Promise<ToolResult<EditDetails>> {
  const result = await applyChanges(changes, engineContext(context, tags));
  if (result.isError || !context.lsp) return result;
  const details = result.details!;
  const written = details.files ? details.files.filter((file) => file.op !== "delete").map((file) => file.path) : [details.path];
  let notes = "";
  for (const path of written) {
    if (!existsSync(path)) continue;
    // The write is done whatever happens here: a file gone since is checked as empty.
    notes += await afterFileWrite(context, path, () => (existsSync(path) ? readFileSync(path, "utf8") : ""), displayPath(context.cwd, path));
  }
  if (notes === "") return result;
  const [first, ...rest] = result.content;
  return { ...result, content: first?.type === "text" ? [{ type: "text", text: `${first.text}${notes}` }, ...rest] : result.content };
}

export function engineContext(context: ToolContext, tags = false): EngineContext {
  return {
    cwd: context.cwd,
    ...(context.fileReads ? { reads: context.fileReads } : {}),
    ...(tags ? { tags } : {}),
    ...(context.editor ? { editor: context.editor } : {}),
    ...(context.checkpoints ? { checkpoints: context.checkpoints } : {}),
    ...(context.toolCallId ? { toolCallId: context.toolCallId } : {}),
    ...(context.paths ? { paths: context.paths } : {}),
    ...(context.authorizeWrite ? { authorizeWrite: context.authorizeWrite } : {}),
  };
}

/** The approval's preview of an edit format's input: undefined when it does not parse (the call says why). */
export async function previewParsed(parse: () => FileChange[], context: ToolContext): Promise<ChangePreview[] | undefined> {
  let changes: FileChange[];
  try {
    changes = parse();
  } catch (error) {
    if (error instanceof PatchSyntaxError || error instanceof HashlineSyntaxError) return undefined;
    throw error;
  }
  return previewChanges(changes, engineContext(context));
}

async function parsed(parse: () => FileChange[], apply: (changes: FileChange[]) => Promise<ToolResult<EditDetails>>): Promise<ToolResult<EditDetails>> {
  let changes: FileChange[];
  try {
    changes = parse();
  } catch (error) {
    if (error instanceof PatchSyntaxError || error instanceof HashlineSyntaxError) return errorResult(`Invalid patch: ${error.message}\nNo changes were written.`);
    throw error;
  }
  return apply(changes);
}

const applyPatchSchema = z.object({ input: z.string().describe("The whole patch, from *** Begin Patch to *** End Patch") });

export const applyPatchTool: ToolDefinition<typeof applyPatchSchema, EditDetails> = {
  ...declared(applyPatchDeclaration),
  schema: applyPatchSchema,
  async execute(input, context) {
    return parsed(() => parseApplyPatch(input.input), (changes) => applyAndCheck(changes, context));
  },
  preview: (input, context) => previewParsed(() => parseApplyPatch(input.input), context),
};

const hashlineSchema = z.object({ input: z.string().describe("[PATH] or [PATH#TAG] sections, each followed by operations") });

export const hashlineEditTool: ToolDefinition<typeof hashlineSchema, EditDetails> = {
  ...declared({ name: "edit", ...editModes.hashline }),
  schema: hashlineSchema,
  async execute(input, context) {
    let warnings: string[] = [];
    const result = await parsed(
      () => {
        const { changes, warnings: found } = parseHashline(input.input);
        warnings = found;
        return changes;
      },
      (changes) => applyAndCheck(changes, context, true),
    );
    if (warnings.length === 0 || result.isError) return result;
    const [first, ...rest] = result.content;
    return { ...result, content: first?.type === "text" ? [{ type: "text", text: `${first.text}\nWarnings:\n${warnings.join("\n")}` }, ...rest] : result.content };
  },
  preview: (input, context) => previewParsed(() => parseHashline(input.input).changes, context),
};

const patchSchema = z.object({
  path: z.string().describe("File to change"),
  op: z.enum(["update", "create", "delete"]).optional().describe("Default update"),
  rename: z.string().optional().describe("New path, to move the file"),
  diff: z.string().optional().describe("update: @@ hunks of ' ' context, '-' and '+' lines; create: the content"),
});

/** Patch mode's input as the engine takes it. */
export function patchChanges(input: z.infer<typeof patchSchema>): FileChange[] {
  const op = input.op ?? "update";
  if (op === "delete") return [{ kind: "delete", path: input.path }];
  const diff = (input.diff ?? "").replaceAll("\r\n", "\n");
  if (op === "create") {
    const lines = diff.split("\n");
    const plus = lines.filter((line) => line !== "").every((line) => line.startsWith("+"));
    return [{ kind: "create", path: input.path, content: plus ? lines.map((line) => line.slice(1)).join("\n") : diff }];
  }
  const ops = parseHunks(diff.split("\n"), input.path);
  if (ops.length === 0 && !input.rename) throw new PatchSyntaxError("the diff has no - or + lines, so it changes nothing.");
  return [{ kind: "update", path: input.path, ops, ...(input.rename ? { moveTo: input.rename } : {}) }];
}

export const patchEditTool: ToolDefinition<typeof patchSchema, EditDetails> = {
  ...declared({ name: "edit", ...editModes.patch }),
  schema: patchSchema,
  async execute(input, context) {
    return parsed(
      () => patchChanges(input),
      (changes) => applyAndCheck(changes, context),
    );
  },
  preview: (input, context) => previewParsed(() => patchChanges(input), context),
};
