import { pathAt, type ToolDeclaration } from "../declare.ts";
import type { FindDetails } from "../find.ts";
import { plural } from "../../plural.ts";
import { searchRow } from "./rows.ts";
import { at, oneLine, str } from "./text.ts";

export const find: ToolDeclaration = {
  name: "find",
  load: () => import("../find.ts").then((module) => module.findTool),
  editor: (input, cwd) => ({ kind: "search", title: `find ${oneLine(str(input.pattern))}${input.path ? ` in ${str(input.path)}` : ""}`, locations: input.path ? at(input.path, cwd) : [] }),
  terminal: { ...searchRow, note: (d: Partial<FindDetails>) => (typeof d.totalMatches === "number" ? plural(d.totalMatches, "path") : undefined) },
  paths: pathAt("path", "read"),
  claude: { names: ["Glob"], rules: ["Read"], absolute: ["path"] },
};
