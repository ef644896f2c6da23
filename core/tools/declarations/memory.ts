import type { BuiltinToolOptions, CodedToolDeclaration } from "../declare.ts";
import { plural } from "../../plural.ts";
import { firstLine, items, oneLine, str } from "./text.ts";

/** `memory.backend` is on. */
const offered = (options: BuiltinToolOptions) => options.memory === true;

export const retain: CodedToolDeclaration = {
  name: "retain",
  order: 190,
  load: () => import("../memory.ts").then((module) => module.retainTool),
  description: "Keep durable facts (decisions, conventions, pitfalls, user preferences) in long-term memory for later sessions. No secrets.",
  loadMode: "discoverable",
  // It changes what later sessions are shown: approval modes that ask for writes ask for it.
  effect: "write",
  offered,
  editor: (input) => {
    const given = items(input.items);
    return { kind: "edit", title: `Remember ${plural(given.length, "memory", "memories")}: ${given.map((item) => oneLine(str(item.content))).join(" · ")}` };
  },
  terminal: { argument: (input) => (Array.isArray(input.items) ? plural(input.items.length, "memory", "memories") : ""), result: "first-line" },
};

/** recall and reflect: a query over the bank, its answer listed. */
function query(name: "recall" | "reflect", order: number, label: string, description: string): CodedToolDeclaration {
  return {
    name,
    order,
    load: () => import("../memory.ts").then((module) => (name === "recall" ? module.recallTool : module.reflectTool)),
    description,
    loadMode: "discoverable",
    effect: "read",
    offered,
    editor: (input) => ({ kind: "search", title: `${label}: ${oneLine(str(input.query))}` }),
    terminal: { argument: (input) => firstLine(input.query), result: "list" },
  };
}

export const recall = query("recall", 200, "Recall", "Search long-term memory from earlier sessions; returns matching memories.");
export const reflect = query("reflect", 210, "Reflect", "Gather what long-term memory holds on a question, to reason over.");
