import { pathAt, type ToolDeclaration } from "../declare.ts";
import type { LsDetails } from "../ls.ts";
import { plural } from "../../plural.ts";
import { at, firstLine, str } from "./text.ts";

export const ls: ToolDeclaration = {
  name: "ls",
  load: () => import("../ls.ts").then((module) => module.lsTool),
  editor: (input, cwd) => ({ kind: "read", title: `List ${str(input.path) || "."}`, locations: at(input.path ?? ".", cwd) }),
  terminal: {
    argument: (input) => firstLine(input.path),
    note: (d: Partial<LsDetails>) => (typeof d.files === "number" ? `${plural(Number(d.directories), "dir")}, ${plural(d.files, "file")}` : undefined),
    result: "on-expand",
  },
  paths: pathAt("path", "read"),
  claude: { names: ["LS"], rules: ["Read"], absolute: ["path"] },
};
