import { pathAt, type CodedToolDeclaration } from "../declare.ts";
import type { FindDetails } from "../find.ts";
import { plural } from "../../plural.ts";
import { searchRow } from "./rows.ts";
import { at, oneLine, str } from "./text.ts";

export const FIND_DEFAULT_LIMIT = 200;

export const find: CodedToolDeclaration = {
  name: "find",
  order: 70,
  load: () => import("../find.ts").then((module) => module.findTool),
  description: [
    "Find files and directories by glob: without / it matches names at any depth (*.py), with / the path below the search directory (src/**/*.py).",
    "Skips gitignored paths and .git; hidden files included.",
    `Newest first, up to ${FIND_DEFAULT_LIMIT} paths (directories end with /); says when there are more. Use it instead of find or ls -R in bash.`,
  ].join(" "),
  effect: "read",
  editor: (input, cwd) => ({ kind: "search", title: `find ${oneLine(str(input.pattern))}${input.path ? ` in ${str(input.path)}` : ""}`, locations: input.path ? at(input.path, cwd) : [] }),
  terminal: { ...searchRow, note: (d: Partial<FindDetails>) => (typeof d.totalMatches === "number" ? plural(d.totalMatches, "path") : undefined) },
  paths: pathAt("path", "read"),
  claude: { names: ["Glob"], rules: ["Read"], absolute: ["path"] },
};
