import { pathAt, type CodedToolDeclaration } from "../declare.ts";
import type { LsDetails } from "../ls.ts";
import { plural } from "../../plural.ts";
import { at, firstLine, str } from "./text.ts";

export const LS_MAX_ENTRIES = 1000;

export const ls: CodedToolDeclaration = {
  name: "ls",
  order: 80,
  load: () => import("../ls.ts").then((module) => module.lsTool),
  description: [
    "List one directory: subdirectories first (ending with /), then files with their sizes, and symlinks with their targets.",
    `Shows everything, including hidden and gitignored entries, up to ${LS_MAX_ENTRIES} entries. Not recursive: use find for that.`,
  ].join(" "),
  effect: "read",
  // read lists a directory too.
  loadMode: "discoverable",
  editor: (input, cwd) => ({ kind: "read", title: `List ${str(input.path) || "."}`, locations: at(input.path ?? ".", cwd) }),
  terminal: {
    argument: (input) => firstLine(input.path),
    note: (d: Partial<LsDetails>) => (typeof d.files === "number" ? `${plural(Number(d.directories), "dir")}, ${plural(d.files, "file")}` : undefined),
    result: "on-expand",
  },
  paths: pathAt("path", "read"),
  claude: { names: ["LS"], rules: ["Read"], absolute: ["path"] },
};
