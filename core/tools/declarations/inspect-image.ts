import { pathAt, type CodedToolDeclaration } from "../declare.ts";
import { at, firstLine, oneLine, str } from "./text.ts";

export const inspectImage: CodedToolDeclaration = {
  name: "inspect_image",
  order: 140,
  load: () => import("../inspect-image.ts").then((module) => module.inspectImageTool),
  description: "Ask a vision model a question about a local image; the answer comes back as text (the image stays out of this conversation).",
  loadMode: "discoverable",
  effect: "read",
  editor: (input, cwd) => ({ kind: "read", title: `Inspect ${str(input.path)}: ${oneLine(str(input.question))}`, locations: at(input.path, cwd) }),
  terminal: { argument: (input) => `${firstLine(input.path)}: ${firstLine(input.question)}` },
  paths: pathAt("path", "read"),
};
