import type { CodedToolDeclaration } from "../declare.ts";
import { applyPatchPaths } from "../edit/apply-patch.ts";
import { changed } from "./rows.ts";
import { abs, str } from "./text.ts";

/** The files the Codex envelope names, in order: "*** Update File: a.ts", "*** Add File: …", "*** Delete File: …". */
const FILE_LINE = /^\*\*\* (?:Update|Add|Delete) File: (.+)$/gm;

/** What GPT models edit with (core/tools/edit/mode.ts), in the edit tool's place. */
export const applyPatch: CodedToolDeclaration = {
  name: "apply_patch",
  load: () => import("../edit/tools.ts").then((module) => module.applyPatchTool),
  description: [
    "Edit files with a patch: *** Begin Patch, then per file *** Update File: <path> (optionally *** Move to: <path>) with @@ hunks of ' ' context, '-' removed and '+' added lines, *** Add File: <path> with '+' lines, or *** Delete File: <path>; then *** End Patch.",
    "Give 3 lines of context around each change (an @@ line naming the enclosing function or class when that is ambiguous). All files change or none. Line endings, BOM and permissions are kept; a file changed since your read is refused.",
  ].join(" "),
  effect: "write",
  editor: (input, cwd) => {
    const files = [...str(input.input).matchAll(FILE_LINE)].map((match) => match[1]!.trim());
    return { kind: "edit", title: `Patch ${files.join(", ") || "files"}`, locations: files.map((file) => ({ path: abs(file, cwd) })) };
  },
  terminal: { argument: (input) => new RegExp(FILE_LINE.source, "m").exec(String(input.input ?? ""))?.[1] ?? "", note: changed, result: "diff" },
  paths: (input) => (typeof input.input === "string" ? applyPatchPaths(input.input).map((path) => ({ path, access: "write" })) : []),
  claude: {
    // An Edit to hooks and agent definitions; hooks read the file it changes from file_path: the patch's first.
    names: ["Edit", "MultiEdit"],
    toClaude: (input) => ({ toolInput: { file_path: applyPatchPaths(String(input.input ?? ""))[0], ...input } }),
    fromClaude: ({ file_path: _, ...patch }) => patch,
  },
};
