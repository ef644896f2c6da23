import { declared } from "./declare.ts";
import { write as writeDeclaration } from "./declarations/write.ts";
import { z } from "zod";
import { readFileSync, statSync } from "node:fs";
import { unifiedDiff } from "./diff.ts";
import { type ChangePreview, MAX_PREVIEW_BYTES } from "./change-preview.ts";
import { recordedChange, writeToolFiles } from "./file-writes.ts";
import { errorResult, textResult } from "./format.ts";
import { plural } from "../plural.ts";
import { displayPath, isDirectory, resolveToolPath } from "./paths.ts";
import { afterFileWrite } from "./post-write.ts";
import type { ToolContext, ToolDefinition } from "./types.ts";
import { isLocalUrl, localPath } from "./local-urls.ts";
import { isNotebookView, NotebookEditError, notebookFromView } from "../documents/notebook-edit.ts";

const schema = z.object({
  path: z.string().describe("Relative, absolute or ~ path; local://<name> (session scratch); conflict://<id> replaces that hunk"),
  content: z.string().describe("The whole new content"),
});

/** Lines as an editor counts them: a final line without a newline still counts. */
export function countLines(text: string): number {
  if (text === "") return 0;
  let count = 0;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) count++;
  return text.endsWith("\n") ? count : count + 1;
}

export const writeTool: ToolDefinition<typeof schema> = {
  ...declared(writeDeclaration),
  schema,
  async execute(input, context) {
    // The original omp's form of settling a conflict hunk: its replacement as the content.
    if (isConflictUrl(input.path)) return (await import("./resolve.ts")).resolveTool.execute({ path: input.path, pick: "edited", content: input.content }, context);
    const path = writePath(input.path, context);
    if (typeof path !== "string") return errorResult(path.error);
    const shown = displayPath(context.cwd, path);
    if (isDirectory(path)) return errorResult(`${shown} is a directory; give the path of a file inside it.`);
    const content = notebookContent(path, input.content);
    if (typeof content !== "string") return errorResult(`${shown}: ${content.error} Nothing was written.`);
    input = { ...input, content };
    let result;
    try {
      const save = context.editor?.writeTextFile;
      result = save ? await recordedChange(context, [path], () => writeInEditor(save, path, input.content)) : (await writeToolFiles(context, [{ path, content: input.content }]))[0]!;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "EACCES" || code === "EPERM") return errorResult(`Permission denied: cannot write ${shown}`);
      // mkdir reports a file in the way as EEXIST, open as ENOTDIR.
      if (code === "ENOTDIR" || code === "EEXIST") return errorResult(`Cannot write ${shown}: a parent of it is a file, not a directory.`);
      if (code === "EROFS") return errorResult(`Cannot write ${shown}: the file system is read-only.`);
      if (context.editor?.writeTextFile) return errorResult(`${shown} was not written: ${(error as Error).message}.`);
      throw error;
    }
    context.fileReads?.recordWrite(result.path, Buffer.from(input.content, "utf8"));
    const lines = countLines(input.content);
    const size = `${plural(result.bytes, "byte")}, ${plural(lines, "line")}`;
    const text = result.created
      ? `Created ${shown} (${size}).`
      : `Overwrote ${shown} (${size}; was ${plural(result.previousBytes ?? 0, "byte")}).`;
    // Post-write step (language-server diagnostics); the write itself is done and never undone here.
    const diagnostics = await afterFileWrite(context, result.path, input.content, shown);
    return textResult(text + diagnostics, { path: result.path, created: result.created, bytes: result.bytes, lines });
  },
  async preview(input, context) {
    if (isConflictUrl(input.path)) return (await import("./resolve.ts")).resolveTool.preview!({ path: input.path, pick: "edited", content: input.content }, context);
    const path = writePath(input.path, context);
    if (typeof path !== "string") return undefined;
    // A file too big to show is not read for a preview at all (change-preview.ts).
    if (isDirectory(path) || input.content.length > MAX_PREVIEW_BYTES || sizeOf(path) > MAX_PREVIEW_BYTES) return undefined;
    const shown = displayPath(context.cwd, path);
    const content = notebookContent(path, input.content);
    if (typeof content !== "string") return undefined;
    input = { ...input, content };
    const oldText = await currentText(path, context.editor?.readTextFile);
    const diff = unifiedDiff(oldText ?? "", input.content, shown);
    return [{ path, shown, op: oldText === null ? "create" : "update", oldText, newText: input.content, diff: diff.text, added: diff.added, removed: diff.removed } satisfies ChangePreview];
  },
};

/**
 * A notebook written in the cell form read shows (`# %% [code] cell:N`) is written as the notebook
 * it describes, keeping the outputs and metadata of the cells it names (core/documents/notebook-edit.ts).
 */
function notebookContent(path: string, content: string): string | { error: string } {
  if (!/\.ipynb$/i.test(path) || !isNotebookView(content)) return content;
  let original: string | undefined;
  try {
    original = readFileSync(path, "utf8");
  } catch {
    original = undefined;
  }
  try {
    return notebookFromView(content, original);
  } catch (error) {
    if (error instanceof NotebookEditError) return { error: error.message };
    throw error;
  }
}

const isConflictUrl = (path: string) => /^conflict:\/\//i.test(path);

/** The file a write goes to: `local://<path>` in the session's scratch folder (local-urls.ts), else a path. */
function writePath(given: string, context: Pick<ToolContext, "cwd" | "artifactsDir">): string | { error: string } {
  if (!isLocalUrl(given)) return resolveToolPath(context.cwd, given);
  const found = localPath(context.artifactsDir, given);
  return "error" in found ? found : found.path;
}

function sizeOf(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

/** The file as the write would replace it (the editor's buffer when it lends one); null when there is none. */
async function currentText(path: string, fromEditor?: (path: string) => Promise<string>): Promise<string | null> {
  try {
    statSync(path);
  } catch {
    return null;
  }
  if (fromEditor) {
    try {
      return await fromEditor(path);
    } catch {
      // Not open in the editor: the disk's copy is what is replaced.
    }
  }
  try {
    return readFileSync(path, "utf8");
  } catch {
    return null;
  }
}

/** Through the editor (ACP fs/write_text_file), which saves the buffer: the same report as a write to disk. */
async function writeInEditor(write: (path: string, content: string) => Promise<void>, path: string, content: string) {
  let previousBytes: number | undefined;
  try {
    previousBytes = statSync(path).size;
  } catch {
    previousBytes = undefined;
  }
  await write(path, content);
  return { path, created: previousBytes === undefined, bytes: Buffer.byteLength(content), previousBytes };
}
