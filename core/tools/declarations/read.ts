import { pathAt, type ToolDeclaration } from "../declare.ts";
import { paged } from "./rows.ts";
import { at, firstLine, str } from "./text.ts";

export const read: ToolDeclaration = {
  name: "read",
  load: () => import("../read.ts").then((module) => module.readTool),
  editor: (input, cwd) => {
    const offset = typeof input.offset === "number" ? input.offset : undefined;
    return { kind: "read", title: `Read ${str(input.path)}${offset ? ` (from line ${offset})` : ""}`, locations: at(input.path, cwd, offset) };
  },
  terminal: { argument: (input) => firstLine(input.path) + (typeof input.offset === "number" ? `:${input.offset}` : ""), note: paged, result: "on-expand" },
  paths: pathAt("path", "read"),
  claude: { names: ["Read"], fields: { path: "file_path" } },
};
