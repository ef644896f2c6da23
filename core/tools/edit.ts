import { readFileSync, statSync } from "node:fs";
import { z } from "zod";
import { writeFileAtomic } from "../fs/atomic-write.ts";
import { unifiedDiff } from "./diff.ts";
import { closestRegion, findIgnoringWhitespace, lineAt, numberedLines } from "./edit-hints.ts";
import { errorResult, plural, textResult } from "./format.ts";
import { displayPath, notFoundMessage, resolveToolPath } from "./paths.ts";
import { afterFileWrite } from "./post-write.ts";
import type { ToolDefinition } from "./types.ts";

const MAX_LISTED_MATCHES = 10;

const editSchema = z.object({
  oldText: z.string().describe("Exact text to find, including whitespace and indentation, without read's line-number prefixes"),
  newText: z.string().describe("Text to put in its place (empty to delete)"),
  replaceAll: z.boolean().optional().describe("Replace every occurrence instead of requiring exactly one (default false)"),
});

const schema = z.object({
  path: z.string().describe("File to edit; relative to the working directory, absolute, or starting with ~"),
  edits: z
    .array(editSchema)
    .min(1)
    .describe("Replacements applied in order, each to the result of the previous ones; all succeed or none is written"),
});

export interface EditDetails {
  path: string;
  diff: string;
  added: number;
  removed: number;
  firstChangedLine?: number;
}

type Edit = z.infer<typeof editSchema>;

/** Offsets of non-overlapping occurrences of `needle`. */
function occurrences(text: string, needle: string): number[] {
  const found: number[] = [];
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) found.push(at);
  return found;
}

/** What the model should look at when its oldText is not in the file. */
function notFoundHint(text: string, oldText: string): string {
  const loose = findIgnoringWhitespace(text, oldText);
  if (loose) {
    return `It does match when whitespace is ignored, at lines ${loose.from}-${loose.to}, so indentation, tabs/spaces or line breaks differ. The file has there:\n${numberedLines(text, loose.from, loose.to)}\nCopy oldText exactly from these lines (without the line-number prefixes).`;
  }
  const close = closestRegion(text, oldText);
  if (close) {
    return `The most similar lines are ${close.from}-${close.to} (${Math.round(close.score * 100)}% similar):\n${numberedLines(text, close.from, close.to)}\nIf this is the intended place, copy oldText exactly from it; otherwise read the file again.`;
  }
  return "Nothing similar is in the file; read it again to see its current content.";
}

/** Applies one edit or says, for the model, why it cannot be applied. */
function applyEdit(text: string, edit: Edit): { text: string } | { error: string } {
  if (edit.oldText === "") {
    return { error: "oldText is empty. Give the exact text to replace (to add text, include a neighbouring line in oldText and in newText); to create a file use write." };
  }
  if (edit.oldText === edit.newText) return { error: "oldText and newText are identical, so this edit would change nothing." };
  const found = occurrences(text, edit.oldText);
  if (found.length === 0) return { error: `oldText was not found. ${notFoundHint(text, edit.oldText)}` };
  if (found.length > 1 && !edit.replaceAll) {
    const lines = found.slice(0, MAX_LISTED_MATCHES).map((at) => lineAt(text, at));
    const more = found.length > MAX_LISTED_MATCHES ? ", …" : "";
    return {
      error: `oldText matches ${found.length} times (at lines ${lines.join(", ")}${more}). Include more surrounding lines in oldText to pick one, or set replaceAll: true to replace all of them.`,
    };
  }
  if (edit.replaceAll) return { text: text.split(edit.oldText).join(edit.newText) };
  const at = found[0]!;
  return { text: text.slice(0, at) + edit.newText + text.slice(at + edit.oldText.length) };
}

/** A file counts as CRLF only when every newline is one; mixed files are edited byte for byte. */
function isCrlf(text: string): boolean {
  const newlines = occurrences(text, "\n").length;
  return newlines > 0 && occurrences(text, "\r\n").length === newlines;
}

export const editTool: ToolDefinition<typeof schema> = {
  name: "edit",
  description: [
    "Edit a file by exact string replacement. Each edit replaces oldText with newText; oldText must match the file exactly (whitespace and indentation included) and, unless replaceAll is set, exactly once, so include enough surrounding lines to make it unique.",
    "Several edits to one file go in one call: they apply in order, each to the result of the previous, and if any fails nothing is written.",
    "Read the file first and copy oldText from it without the line-number prefixes. Line endings (CRLF or LF) and file permissions are preserved. Returns a unified diff of the change.",
    "Use write to create files or replace them wholesale.",
  ].join(" "),
  schema,
  effect: "write",
  async execute(input, context) {
    const path = resolveToolPath(context.cwd, input.path);
    const shown = displayPath(context.cwd, path);
    let raw: Buffer;
    try {
      if (statSync(path).isDirectory()) return errorResult(`${shown} is a directory; edit a file inside it.`);
      raw = readFileSync(path);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT" || code === "ENOTDIR") return errorResult(`${notFoundMessage(context.cwd, path)}\nTo create a new file, use write.`);
      if (code === "EACCES") return errorResult(`Permission denied: cannot read ${shown}`);
      throw error;
    }
    if (raw.includes(0)) return errorResult(`${shown} is a binary file; edit only changes text files.`);

    let original = raw.toString("utf8");
    // Decoding would replace invalid bytes, and writing back would then corrupt the rest of the file.
    if (!Buffer.from(original, "utf8").equals(raw)) {
      return errorResult(`${shown} is not valid UTF-8 (another encoding, such as Latin-1?); edit would corrupt it. Use bash (iconv, sed) instead.`);
    }
    const bom = original.startsWith("\uFEFF") ? "\uFEFF" : "";
    if (bom) original = original.slice(1);
    const crlf = isCrlf(original);
    // Matching happens on LF text so the model's \n-separated oldText finds CRLF lines too.
    const toLf = (text: string) => (crlf ? text.replaceAll("\r\n", "\n") : text);
    const before = toLf(original);

    let after = before;
    for (const [i, edit] of input.edits.entries()) {
      const result = applyEdit(after, { ...edit, oldText: toLf(edit.oldText), newText: toLf(edit.newText) });
      if ("error" in result) {
        const which = input.edits.length > 1 ? `Edit ${i + 1} of ${input.edits.length}` : "The edit";
        const evolving = i > 0 ? ` (searched in the file as changed by the edits before it)` : "";
        return errorResult(`${which} failed in ${shown}${evolving}: ${result.error}\nNo changes were written.`);
      }
      after = result.text;
    }
    if (after === before) return errorResult(`The edits leave ${shown} unchanged; nothing was written.`);

    const written = bom + (crlf ? after.replaceAll("\n", "\r\n") : after);
    try {
      writeFileAtomic(path, written, { mode: "user" });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "EACCES" || code === "EPERM") return errorResult(`Permission denied: cannot write ${shown}`);
      throw error;
    }
    const diff = unifiedDiff(before, after, shown);
    const details: EditDetails = {
      path,
      diff: diff.text,
      added: diff.added,
      removed: diff.removed,
      firstChangedLine: diff.firstChangedLine,
    };
    const summary = `Edited ${shown}: ${plural(input.edits.length, "edit")} applied, +${diff.added} -${diff.removed} lines.`;
    // Post-write step (language-server diagnostics); the write itself is done and never undone here.
    const diagnostics = await afterFileWrite(context, path, written, shown);
    return textResult(`${summary}\n\n${diff.text}${diagnostics}`, details);
  },
};
