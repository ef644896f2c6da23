import { pathAt, type ToolDeclaration } from "../declare.ts";
import type { GrepDetails } from "../grep.ts";
import { plural } from "../../plural.ts";
import { searchRow } from "./rows.ts";
import { at, oneLine, str } from "./text.ts";

export const grep: ToolDeclaration = {
  name: "grep",
  load: () => import("../grep.ts").then((module) => module.grepTool),
  editor: (input, cwd) => ({ kind: "search", title: `grep ${oneLine(str(input.pattern))}${input.path ? ` in ${str(input.path)}` : ""}`, locations: input.path ? at(input.path, cwd) : [] }),
  terminal: { ...searchRow, note: (d: Partial<GrepDetails>) => (typeof d.totalMatches === "number" ? `${plural(d.totalMatches, "match", "matches")} in ${plural(Number(d.filesWithMatches), "file")}` : undefined) },
  paths: pathAt("path", "read"),
  claude: { names: ["Grep"], rules: ["Read"], fields: { ignoreCase: "-i", outputMode: "output_mode", context: "-C", limit: "head_limit" }, absolute: ["path"] },
};
