import type { BuiltinToolOptions, ToolDeclaration } from "../declare.ts";
import { plural } from "../../plural.ts";
import { firstLine, items, oneLine, str } from "./text.ts";

/** `memory.backend` is on. */
const offered = (options: BuiltinToolOptions) => options.memory === true;

export const retain: ToolDeclaration = {
  name: "retain",
  load: () => import("../memory.ts").then((module) => module.retainTool),
  offered,
  editor: (input) => {
    const given = items(input.items);
    return { kind: "edit", title: `Remember ${plural(given.length, "memory", "memories")}: ${given.map((item) => oneLine(str(item.content))).join(" · ")}` };
  },
  terminal: { argument: (input) => (Array.isArray(input.items) ? plural(input.items.length, "memory", "memories") : ""), result: "first-line" },
};

/** recall and reflect: a query over the bank, its answer listed. */
function query(name: "recall" | "reflect", label: string): ToolDeclaration {
  return {
    name,
    load: () => import("../memory.ts").then((module) => (name === "recall" ? module.recallTool : module.reflectTool)),
    offered,
    editor: (input) => ({ kind: "search", title: `${label}: ${oneLine(str(input.query))}` }),
    terminal: { argument: (input) => firstLine(input.query), result: "list" },
  };
}

export const recall = query("recall", "Recall");
export const reflect = query("reflect", "Reflect");
