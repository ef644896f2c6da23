import type { CodedToolDeclaration, ToolAbout, ToolInput } from "../declare.ts";
import type { ToolDefinition } from "../types.ts";
import { hashlinePaths } from "../edit/hashline.ts";
import { changed } from "./rows.ts";
import { abs, firstLine, invert, items, renameKeys, str } from "./text.ts";

const EDIT_FIELDS: Record<string, string> = { oldText: "old_string", newText: "new_string", replaceAll: "replace_all" };

/** The edit tool in every format named edit: replacements (this one's code), and patch and hashline (editModes). */
export const edit: CodedToolDeclaration = {
  name: "edit",
  order: 30,
  load: () => import("../edit.ts").then((module) => module.editTool),
  description: [
    "Replace exact text in a file. Each edit's oldText must match the file exactly, whitespace and indentation included, and exactly once unless replaceAll: include enough lines to make it unique.",
    "Read the file first; copy oldText without read's line-number prefixes.",
    "Edits apply in order, each to the previous one's result; if any fails, nothing is written. Line endings, BOM and permissions are kept; a file changed since your read is refused. Returns a diff.",
    "To create or rewrite a whole file use write.",
  ].join(" "),
  effect: "write",
  editor: (input, cwd) => {
    const path = abs(input.path, cwd);
    return { kind: "edit", title: `Edit ${str(input.path)}`, diffs: items(input.edits).map((one) => ({ path, oldText: str(one.oldText), newText: str(one.newText) })) };
  },
  // The hashline edit names its file inside `input`.
  terminal: { argument: (input) => firstLine(input.path) || (/^\[([^\]#]+)/m.exec(String(input.input ?? ""))?.[1] ?? ""), note: changed, result: "diff" },
  paths: (input) => {
    // Patch mode's rename writes a second file.
    if (typeof input.path === "string" && typeof input.rename === "string") return [input.path, input.rename].map((path) => ({ path, access: "write" }));
    if (typeof input.input === "string") return hashlinePaths(input.input).map((path) => ({ path, access: "write" }));
    if (input.path !== undefined && typeof input.path !== "string") return [];
    return [{ path: input.path, access: "write" }];
  },
  claude: {
    names: ["Edit", "MultiEdit"],
    rules: ["Write", "NotebookEdit"],
    fields: { path: "file_path" },
    // One replacement is Claude's Edit, several its MultiEdit.
    toClaude: (input, renamed) => {
      if (!Array.isArray(input.edits)) return { toolInput: renamed };
      const edits = (input.edits as unknown[]).map((one) => (one && typeof one === "object" ? renameKeys(one as ToolInput, EDIT_FIELDS) : one));
      if (edits.length === 1 && edits[0] && typeof edits[0] === "object") {
        const { edits: _, ...rest } = renamed;
        return { toolName: "Edit", toolInput: { ...rest, ...(edits[0] as ToolInput) } };
      }
      return { toolName: "MultiEdit", toolInput: { ...renamed, edits } };
    },
    fromClaude: (renamed) => {
      const { old_string, new_string, replace_all, ...rest } = renamed;
      if (typeof old_string === "string") {
        const single: ToolInput = { oldText: old_string, newText: new_string ?? "" };
        if (replace_all !== undefined) single.replaceAll = replace_all;
        return { ...rest, edits: [single] };
      }
      if (Array.isArray(rest.edits)) rest.edits = rest.edits.map((one) => (one && typeof one === "object" ? renameKeys(one as ToolInput, invert(EDIT_FIELDS)) : one));
      return rest;
    },
  },
};

/** The edit tool's other formats, swapped in per model (core/tools/edit/mode.ts): what the model reads of each, and its code. */
export const editModes: Record<"patch" | "hashline", ToolAbout & { load: () => Promise<ToolDefinition> }> = {
  patch: {
    description: [
      "Change one file with a diff: op update (default) takes @@ hunks of ' ' context, '-' removed and '+' added lines, with 3 lines of context around each change; op create takes the content; op delete none; rename moves the file.",
      "All hunks apply or none. Line endings, BOM and permissions are kept; a file changed since your read is refused.",
    ].join(" "),
    effect: "write",
    load: () => import("../edit/tools.ts").then((module) => module.patchEditTool),
  },
  hashline: {
    description: [
      "Edit files by line number (as read shows them). A section starts with [PATH] (or [PATH#TAG] from an earlier edit result), then operations: SWAP N.=M: with +TEXT rows replaces lines N-M; DEL N.=M deletes them; INS.PRE N: / INS.POST N: / INS.HEAD: / INS.TAIL: insert the +TEXT rows.",
      "Line numbers are those of the file before this call. All sections apply or none; a file changed since your read is refused.",
    ].join(" "),
    effect: "write",
    load: () => import("../edit/tools.ts").then((module) => module.hashlineEditTool),
  },
};
