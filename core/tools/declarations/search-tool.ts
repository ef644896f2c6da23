import type { ToolDeclaration } from "../declare.ts";
import { firstLine, oneLine, str } from "./text.ts";

/** Finds deferred tools (core/tools/discovery), offered when some are deferred. */
export const searchTool: ToolDeclaration = {
  name: "search_tool_bm25",
  editor: (input) => ({ kind: "search", title: `Find tools: ${oneLine(str(input.query))}` }),
  terminal: {
    argument: (input) => firstLine(input.query),
    note: (d: { activated_tools?: unknown }) => (Array.isArray(d.activated_tools) ? (d.activated_tools.length > 0 ? `loaded ${d.activated_tools.join(", ")}` : "nothing found") : undefined),
    result: "on-expand",
  },
};
