import { declared } from "./declare.ts";
import { astGrep as astGrepDeclaration } from "./declarations/ast-grep.ts";
import { z } from "zod";
import { describeError } from "../errors/omp-error.ts";
import { cutLine, errorResult, textResult } from "./format.ts";
import { displayPath, isDirectory, notFoundMessage, resolveToolPath, readRefusal } from "./paths.ts";
import type { ToolDefinition } from "./types.ts";

const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 500;

const schema = z.object({
  pattern: z.string().describe("code, $X/$$$XS wildcards"),
  path: z.string().optional().describe("file/dir"),
  glob: z.string().optional().describe("files"),
  offset: z.int().optional().describe("skip"),
  limit: z.int().optional().describe("max 50"),
});

/** Structural search: matches by syntax tree, so comments and strings never match code. */
export const astGrepTool: ToolDefinition<typeof schema> = {
  ...declared(astGrepDeclaration),
  schema,
  async execute(input, context) {
    if (!input.pattern.trim()) return errorResult("ast_grep: pattern is empty.");
    const root = resolveToolPath(context.cwd, input.path);
    const refused = readRefusal(context, root);
    if (refused !== undefined) return errorResult(refused);
    if (!(await Bun.file(root).exists()) && !isDirectory(root)) return errorResult(notFoundMessage(context.cwd, root));
    try {
      const [{ sourceFiles }, { findMatches, SUPPORTED }] = await Promise.all([import("../ast-grep/files.ts"), import("../ast-grep/engine.ts")]);
      const { files, skipped } = await sourceFiles(root, { glob: input.glob, signal: context.signal, readable: (file) => readRefusal(context, file) === undefined });
      if (files.length === 0) return textResult(`No files of a language ast-grep knows here (${SUPPORTED}, by extension).`, { total: 0 });
      const offset = Math.max(0, input.offset ?? 0);
      const limit = Math.min(MAX_LIMIT, Math.max(1, input.limit ?? DEFAULT_LIMIT));
      const lines: string[] = [];
      let total = 0;
      let inFiles = 0;
      for (const file of files) {
        const { matches } = findMatches(file.lang, file.text, input.pattern);
        if (matches.length > 0) inFiles++;
        for (const match of matches) {
          if (total >= offset && total < offset + limit) {
            lines.push(`${displayPath(context.cwd, file.path)}:${match.line}:${match.column}: ${cutLine(match.text.split("\n")[0]!.trim(), 200)}${match.text.includes("\n") ? " …" : ""}`);
          }
          total++;
        }
      }
      const note = skipped > 0 ? ` (${skipped} file(s) over 2 MB skipped)` : "";
      if (total === 0) return textResult(`No matches in ${files.length} file(s)${note}.`, { total: 0 });
      const more = total > offset + limit ? `\n[${total - offset - limit} more; offset: ${offset + limit}]` : "";
      return textResult(`${total} match(es) in ${inFiles} file(s)${note}:\n${lines.join("\n")}${more}`, { total });
    } catch (error) {
      return errorResult(`ast_grep: ${describeError(error)}`);
    }
  },
};
