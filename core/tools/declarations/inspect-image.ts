import { pathAt, type ToolDeclaration } from "../declare.ts";
import { at, firstLine, oneLine, str } from "./text.ts";

export const inspectImage: ToolDeclaration = {
  name: "inspect_image",
  load: () => import("../inspect-image.ts").then((module) => module.inspectImageTool),
  editor: (input, cwd) => ({ kind: "read", title: `Inspect ${str(input.path)}: ${oneLine(str(input.question))}`, locations: at(input.path, cwd) }),
  terminal: { argument: (input) => `${firstLine(input.path)}: ${firstLine(input.question)}` },
  paths: pathAt("path", "read"),
};
