import { declared } from "./declare.ts";
import { GREP_DEFAULT_LIMIT, GREP_MAX_LINE_CHARS, grep as grepDeclaration } from "./declarations/grep.ts";
import { existsSync } from "node:fs";
import { isAbsolute, join, relative } from "node:path";
import { z } from "zod";
import type { GrepMode, GrepResult } from "../natives/api.ts";
import { natives } from "../natives/index.ts";
import { cutLine, errorResult, textResult } from "./format.ts";
import { searchErrorResult } from "./native-errors.ts";
import { describeLocation, displayPath, globLiteral, notFoundMessage, resolveToolPath, readRefusal } from "./paths.ts";
import type { ToolContext, ToolDefinition } from "./types.ts";
import { plural } from "../plural.ts";

/** Lines longer than this never leave the addon; a minified bundle would otherwise cost megabytes per match. */
const MAX_LINE_BYTES = 4096;
const TIMEOUT_S = 60;

const OUTPUT_MODES = { content: "content", files: "files_with_matches", count: "count" } as const satisfies Record<string, GrepMode>;

const schema = z.object({
  pattern: z.string().min(1).describe("Regex, or plain text with literal"),
  path: z.string().optional().describe("File or directory (default: working directory)"),
  glob: z.string().optional().describe("Only files matching this glob, e.g. *.ts or src/**/*.{ts,tsx}; ! excludes"),
  type: z.string().optional().describe("Only files of this ripgrep type, e.g. ts, py, rust"),
  ignoreCase: z.boolean().optional().describe("Case-insensitive"),
  literal: z.boolean().optional().describe("pattern is plain text"),
  multiline: z.boolean().optional().describe("Matches may span lines"),
  context: z.int().min(0).max(20).optional().describe("Lines shown around each match"),
  limit: z.int().min(1).max(1000).optional().describe(`Most results: lines, or files in files/count mode (default ${GREP_DEFAULT_LIMIT})`),
  offset: z.int().min(0).optional().describe("Results to skip (next page)"),
  outputMode: z
    .enum(["content", "files", "count"])
    .optional()
    .describe("content: matching lines (default); files: paths only; count: matches per file"),
});
type GrepInput = z.infer<typeof schema>;

export interface GrepDetails {
  totalMatches: number;
  filesWithMatches: number;
  filesSearched: number;
  limitReached: boolean;
  /** The files of this page, as shown to the model. */
  files: { path: string; matchCount: number }[];
}

export const grepTool: ToolDefinition<typeof schema, GrepDetails> = {
  ...declared(grepDeclaration),
  schema,
  async execute(input, context) {
    const root = resolveToolPath(context.cwd, input.path);
    const refused = readRefusal(context, root);
    if (refused !== undefined) return errorResult(refused);
    if (!existsSync(root)) return errorResult(notFoundMessage(context.cwd, root, "Path"));
    const mode = OUTPUT_MODES[input.outputMode ?? "content"];
    const offset = input.offset ?? 0;
    const limit = input.limit ?? GREP_DEFAULT_LIMIT;
    const contextLines = mode === "content" ? (input.context ?? 0) : 0;
    let result: GrepResult;
    try {
      result = await natives().grep({
        pattern: input.pattern,
        paths: [root],
        // Hidden files matter (.github, .env.example) but .git's internals never do.
        // The deny-list's trees are pruned in the walk, last so that no glob of the call's reopens them.
        globs: ["!.git", ...(input.glob ? [input.glob] : []), ...deniedGlobs(context, root)],
        types: input.type ? [input.type] : [],
        ignoreCase: input.ignoreCase ?? false,
        fixedStrings: input.literal ?? false,
        multiline: input.multiline ?? false,
        hidden: true,
        respectIgnore: true,
        contextBefore: contextLines,
        contextAfter: contextLines,
        offset,
        limit,
        maxColumns: MAX_LINE_BYTES,
        mode,
        signal: context.signal,
        timeoutMs: TIMEOUT_S * 1000,
      });
    } catch (error) {
      return searchErrorResult(error, context, root, TIMEOUT_S);
    }
    return formatResult(withoutDenied(result, context), input, { root, mode, offset, contextLines }, context);
  },
};

/**
 * The deny-list's trees below `root` as globs that prune them in the walk. The addon roots globs
 * at the process's working directory, as rg does: `!**<absolute path>` holds wherever the search
 * root is, `!/<relative>` where the walk's paths are taken relative to the working directory.
 */
function deniedGlobs(context: ToolContext, root: string): string[] {
  const cwd = process.cwd();
  return (context.paths?.deniedBelow(root) ?? []).flatMap((below) => {
    const prefix = below.endsWith("*");
    const absolute = join(root, prefix ? below.slice(0, -1) : below);
    const star = prefix ? "*" : "";
    const relativeToCwd = relative(cwd, absolute);
    const globs = [`!**${globLiteral(absolute)}${star}`];
    if (relativeToCwd !== "" && !relativeToCwd.startsWith("..") && !isAbsolute(relativeToCwd)) globs.push(`!/${globLiteral(relativeToCwd)}${star}`);
    return globs;
  });
}

/** A file the walk could not know is denied (a hard link to a denied file) is taken out of the page and its counts. */
function withoutDenied(result: GrepResult, context: ToolContext): GrepResult {
  if (!context.paths) return result;
  const denied = result.files.filter((file) => readRefusal(context, file.path) !== undefined);
  if (denied.length === 0) return result;
  return {
    ...result,
    files: result.files.filter((file) => !denied.includes(file)),
    totalMatches: result.totalMatches - denied.reduce((sum, file) => sum + file.matchCount, 0),
    filesWithMatches: result.filesWithMatches - denied.length,
  };
}

function formatResult(
  result: GrepResult,
  input: GrepInput,
  page: { root: string; mode: GrepMode; offset: number; contextLines: number },
  context: ToolContext,
) {
  const { contextLines } = page;
  const shown = (path: string) => displayPath(context.cwd, path);
  const details: GrepDetails = {
    totalMatches: result.totalMatches,
    filesWithMatches: result.filesWithMatches,
    filesSearched: result.filesSearched,
    limitReached: result.limitReached,
    files: result.files.map((file) => ({ path: shown(file.path), matchCount: file.matchCount })),
  };
  const [unit, units] = page.mode === "content" ? ["match", "matches"] : ["file", "files"];
  const total = page.mode === "content" ? result.totalMatches : result.filesWithMatches;
  if (total === 0) {
    const filters = [input.glob && `glob ${input.glob}`, input.type && `type ${input.type}`].filter(Boolean).join(", ");
    const skipped = result.binarySkipped > 0 ? ` ${plural(result.binarySkipped, "binary file")} skipped.` : "";
    return textResult(
      `No matches for ${JSON.stringify(input.pattern)} in ${describeLocation(context.cwd, page.root)}${filters ? ` (${filters})` : ""}; ${plural(result.filesSearched, "file")} searched.${skipped}`,
      details,
    );
  }
  if (result.files.length === 0) {
    return errorResult(`offset ${page.offset} is past the end: there are ${plural(total, unit, units)}.`, details);
  }

  const blocks: string[] = [];
  let count = 0;
  for (const file of result.files) {
    if (page.mode === "files_with_matches") {
      blocks.push(shown(file.path));
      count++;
    } else if (page.mode === "count") {
      blocks.push(`${shown(file.path)}: ${file.matchCount}`);
      count++;
    } else {
      const lines = [shown(file.path)];
      let previous = -1;
      for (const line of file.lines) {
        if (contextLines > 0 && previous !== -1 && line.lineNumber > previous + 1) lines.push("  --");
        previous = line.lineNumber;
        const sep = line.kind === "match" ? ":" : "-";
        if (line.kind === "match") count++;
        const text = line.truncated ? `${line.text} (over ${MAX_LINE_BYTES} bytes; read the file at this line)` : cutLine(line.text, GREP_MAX_LINE_CHARS);
        lines.push(`  ${line.lineNumber}${sep} ${text}`);
      }
      blocks.push(lines.join("\n"));
    }
  }
  let text = blocks.join(page.mode === "content" ? "\n\n" : "\n");
  if (result.limitReached || page.offset > 0) {
    const next = result.limitReached ? ` Use offset=${page.offset + count} for the next page.` : "";
    const where = page.mode === "content" ? ` in ${plural(result.filesWithMatches, "file")}` : "";
    text += `\n\n[Showing ${units} ${page.offset + 1}-${page.offset + count} of ${total}${where}.${next}]`;
  }
  return textResult(text, details);
}
