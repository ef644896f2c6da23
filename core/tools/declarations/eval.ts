import type { CodedToolDeclaration, ToolInput } from "../declare.ts";
import type { EvalDetails } from "../eval.ts";
import { items, oneLine, str } from "./text.ts";

/** An eval call's cells in a few words: `py: imports, js`. */
const cells = (input: ToolInput) => items(input.cells).map((cell) => `${str(cell.language)}${cell.title ? `: ${oneLine(str(cell.title))}` : ""}`).join(", ");

export const evalTool: CodedToolDeclaration = {
  name: "eval",
  order: 50,
  load: () => import("../eval.ts").then((module) => module.evalTool),
  description: [
    "Run Python (py) or JavaScript (js) cells in persistent per-session runtimes (state stays for later cells and calls), e.g. for data work or quick experiments; use it instead of python -c or node -e.",
    "The last expression's value is shown; display(value) shows images (PNG, matplotlib) and JSON. A js cell that awaits must return its value.",
    "Helpers: read(path, offset?, limit?), write(path, text), append, env(key?, value?) (await them in js).",
    "notebook runs a .ipynb's code cells first (outputs returned, not saved).",
    `Long output keeps head and tail, the rest in a log file. Sandboxed like bash.`,
  ].join(" "),
  effect: "exec",
  // bash runs scripts too; a persistent runtime is seldom what a coding task needs first.
  loadMode: "discoverable",
  editor: (input) => ({ kind: "execute", title: `eval ${cells(input)}`, command: items(input.cells).map((cell) => str(cell.code)).join("\n\n") }),
  terminal: {
    argument: cells,
    note: (d: Partial<EvalDetails>) => (Array.isArray(d.cells) ? `${(d.cells.reduce((sum, cell) => sum + cell.durationMs, 0) / 1000).toFixed(1)}s` : undefined),
    result: "output",
  },
};
