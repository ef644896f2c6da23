import { declared } from "./declare.ts";
import { FIND_DEFAULT_LIMIT, find as findDeclaration } from "./declarations/find.ts";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import type { EntryKind, GlobResult } from "../natives/api.ts";
import { natives } from "../natives/index.ts";
import { errorResult, textResult } from "./format.ts";
import { searchErrorResult } from "./native-errors.ts";
import { describeLocation, displayPath, globLiteral, isDirectory, notFoundMessage, resolveToolPath, readRefusal } from "./paths.ts";
import type { ToolDefinition } from "./types.ts";

export const FIND_MAX_LIMIT = 1000;
const TIMEOUT_S = 30;

const schema = z.object({
  pattern: z
    .string()
    .min(1)
    .describe("Glob, e.g. *.ts, src/**/*.test.ts, **/config*"),
  path: z.string().optional().describe("Directory to search (default: working directory)"),
  type: z.enum(["file", "dir"]).optional().describe("Only files or only directories"),
  limit: z.int().min(1).max(FIND_MAX_LIMIT).optional().describe(`Most paths (default ${FIND_DEFAULT_LIMIT})`),
});

export interface FindDetails {
  root: string;
  totalMatches: number;
  limitReached: boolean;
  /** As shown to the model; directories end with /. */
  paths: string[];
}

export const findTool: ToolDefinition<typeof schema, FindDetails> = {
  ...declared(findDeclaration),
  schema,
  async execute(input, context) {
    const root = resolveToolPath(context.cwd, input.path);
    const refused = readRefusal(context, root);
    if (refused !== undefined) return errorResult(refused);
    if (!existsSync(root)) return errorResult(notFoundMessage(context.cwd, root, "Directory"));
    if (!isDirectory(root)) return errorResult(`${displayPath(context.cwd, root)} is a file, not a directory; give its directory as path.`);
    const limit = input.limit ?? FIND_DEFAULT_LIMIT;
    const kinds: EntryKind[] = input.type ? [input.type] : [];
    let result: GlobResult;
    try {
      result = await natives().glob({
        // The deny-list's trees are pruned in the walk (an excluded directory takes its contents with
        // it); a one-component name (`.ssh`) is excluded at any depth, as find's patterns go.
        patterns: [input.pattern, ...(context.paths?.deniedBelow(root).map((path) => (path.endsWith("*") ? `!${globLiteral(path.slice(0, -1))}*` : `!${globLiteral(path)}`)) ?? [])],
        root,
        kinds,
        hidden: true,
        respectIgnore: true,
        maxResults: limit,
        newestFirst: true,
        signal: context.signal,
        timeoutMs: TIMEOUT_S * 1000,
      });
    } catch (error) {
      return searchErrorResult(error, context, root, TIMEOUT_S);
    }
    const paths = result.entries.map((entry) => {
      const shown = displayPath(context.cwd, join(root, entry.path));
      return entry.kind === "dir" ? `${shown}/` : shown;
    });
    const details: FindDetails = { root, totalMatches: result.totalMatches, limitReached: result.limitReached, paths };
    const where = describeLocation(context.cwd, root);
    if (paths.length === 0) {
      return textResult(`No ${input.type === "dir" ? "directories" : input.type === "file" ? "files" : "paths"} matching ${input.pattern} in ${where}.`, details);
    }
    let text = paths.join("\n");
    if (result.limitReached) {
      text += `\n\n[Showing the ${paths.length} newest of ${result.totalMatches} matches. Use a narrower pattern or path${limit < FIND_MAX_LIMIT ? `, or a larger limit (max ${FIND_MAX_LIMIT})` : ""}.]`;
    }
    return textResult(text, details);
  },
};
