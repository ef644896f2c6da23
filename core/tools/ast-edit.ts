import { declared } from "./declare.ts";
import { astEdit as astEditDeclaration } from "./declarations/ast-edit.ts";
import { z } from "zod";
import { writeToolFiles } from "./file-writes.ts";
import { describeError } from "../errors/omp-error.ts";
import { unifiedDiff } from "./diff.ts";
import { errorResult, textResult } from "./format.ts";
import { displayPath, isDirectory, notFoundMessage, resolveToolPath, readRefusal } from "./paths.ts";
import type { ToolDefinition } from "./types.ts";

const MAX_DIFF_CHARS = 30_000;

const schema = z.object({
  pattern: z.string().describe("as ast_grep"),
  rewrite: z.string().describe("code, its $X"),
  path: z.string().optional().describe("file/dir"),
  glob: z.string().optional().describe("files"),
  apply: z.boolean().optional().describe("write"),
});

/** Structural rewrite: every match of the pattern becomes the rewrite, metavariables carried over. */
export const astEditTool: ToolDefinition<typeof schema> = {
  ...declared(astEditDeclaration),
  schema,
  effectOf: (input) => (input.apply ? "write" : "read"),
  async execute(input, context) {
    if (!input.pattern.trim()) return errorResult("ast_edit: pattern is empty.");
    const root = resolveToolPath(context.cwd, input.path);
    const refused = readRefusal(context, root);
    if (refused !== undefined) return errorResult(refused);
    if (!(await Bun.file(root).exists()) && !isDirectory(root)) return errorResult(notFoundMessage(context.cwd, root));
    try {
      const [{ sourceFiles }, { rewriteSource }] = await Promise.all([import("../ast-grep/files.ts"), import("../ast-grep/engine.ts")]);
      const { files } = await sourceFiles(root, { glob: input.glob, signal: context.signal, readable: (file) => readRefusal(context, file) === undefined });
      const changed: { path: string; before: string; after: string; count: number }[] = [];
      for (const file of files) {
        const { text, count } = rewriteSource(file.lang, file.text, input.pattern, input.rewrite);
        if (count > 0 && text !== file.text) changed.push({ path: file.path, before: file.text, after: text, count });
      }
      if (changed.length === 0) return textResult(`No matches in ${files.length} file(s); nothing to rewrite.`, { files: [] });
      const shown = changed.map((change) => displayPath(context.cwd, change.path));
      let diffs = changed.map((change, i) => unifiedDiff(change.before, change.after, shown[i]!).text).join("\n");
      if (diffs.length > MAX_DIFF_CHARS) diffs = `${diffs.slice(0, MAX_DIFF_CHARS)}\n… [diff cut]`;
      const count = changed.reduce((sum, change) => sum + change.count, 0);
      if (!input.apply) return textResult(`${count} rewrite(s) in ${changed.length} file(s) (dry run; apply: true writes them):\n${diffs}`, { files: shown, applied: false });
      await writeToolFiles(context, changed.map((change) => ({ path: change.path, content: change.after })));
      return textResult(`Rewrote ${count} match(es) in ${changed.length} file(s): ${shown.join(", ")}\n${diffs}`, { files: shown, applied: true });
    } catch (error) {
      return errorResult(`ast_edit: ${describeError(error)}`);
    }
  },
};
