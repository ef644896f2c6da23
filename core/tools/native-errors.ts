import { describeError } from "../errors/omp-error.ts";
import { nativeErrorCode } from "../natives/index.ts";
import { errorResult } from "./format.ts";
import { displayPath, notFoundMessage } from "./paths.ts";
import type { ToolContext, ToolResult } from "./types.ts";

/**
 * Turns what the search addon rejects with into a result the model can act on. Anything
 * without an addon code (the addon failed to load, a bug) is rethrown for the agent to report.
 */
export function searchErrorResult(error: unknown, context: ToolContext, root: string, timeoutS: number): ToolResult<never> {
  const message = describeError(error);
  switch (nativeErrorCode(error)) {
    case "OMP_BAD_PATTERN":
      return errorResult(`Invalid regex: ${message}\nFix the pattern, or set literal: true to search for the text as is.`);
    case "OMP_BAD_GLOB":
      return errorResult(`Invalid glob: ${message}`);
    case "OMP_UNKNOWN_TYPE":
      return errorResult(`${message}\nUse a ripgrep type name such as ts, js, py, rust, go, java, c, cpp, md, json, or a glob instead.`);
    case "OMP_NOT_FOUND":
      return errorResult(notFoundMessage(context.cwd, root, "Path"));
    case "OMP_PERMISSION_DENIED":
      return errorResult(`Permission denied: ${displayPath(context.cwd, root)} (${message})`);
    case "OMP_CANCELLED":
      if (context.signal.aborted) return errorResult("Search aborted.");
      return errorResult(`Search timed out after ${timeoutS}s. Narrow it with a more specific path or glob.`);
    case "OMP_INVALID_OPTIONS":
    case "OMP_IO":
      return errorResult(`Search failed: ${message}`);
    default:
      throw error;
  }
}
