import type { ToolDeclaration, ToolInput } from "../declare.ts";
import { hashlinePaths } from "../edit/hashline.ts";
import { changed } from "./rows.ts";
import { abs, firstLine, invert, items, renameKeys, str } from "./text.ts";

const EDIT_FIELDS: Record<string, string> = { oldText: "old_string", newText: "new_string", replaceAll: "replace_all" };

/** The edit tool in every format named edit: replacements (this one's code), and patch and hashline (editModes). */
export const edit: ToolDeclaration = {
  name: "edit",
  load: () => import("../edit.ts").then((module) => module.editTool),
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

/** The code of the edit tool's other formats, swapped in per model (core/tools/edit/mode.ts). */
export const editModes = {
  patch: () => import("../edit/tools.ts").then((module) => module.patchEditTool),
  hashline: () => import("../edit/tools.ts").then((module) => module.hashlineEditTool),
};
