import type { ToolDeclaration, ToolInput } from "../declare.ts";
import type { EvalDetails } from "../eval.ts";
import { items, oneLine, str } from "./text.ts";

/** An eval call's cells in a few words: `py: imports, js`. */
const cells = (input: ToolInput) => items(input.cells).map((cell) => `${str(cell.language)}${cell.title ? `: ${oneLine(str(cell.title))}` : ""}`).join(", ");

export const evalTool: ToolDeclaration = {
  name: "eval",
  load: () => import("../eval.ts").then((module) => module.evalTool),
  editor: (input) => ({ kind: "execute", title: `eval ${cells(input)}`, command: items(input.cells).map((cell) => str(cell.code)).join("\n\n") }),
  terminal: {
    argument: cells,
    note: (d: Partial<EvalDetails>) => (Array.isArray(d.cells) ? `${(d.cells.reduce((sum, cell) => sum + cell.durationMs, 0) / 1000).toFixed(1)}s` : undefined),
    result: "output",
  },
};
