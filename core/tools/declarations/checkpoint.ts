import type { ToolDeclaration } from "../declare.ts";
import { firstLine, oneLine, str } from "./text.ts";

export const checkpoint: ToolDeclaration = {
  name: "checkpoint",
  load: () => import("../checkpoint.ts").then((module) => module.checkpointTool),
  editor: (input) => ({ kind: "think", title: `Checkpoint: ${oneLine(str(input.goal))}` }),
  terminal: { argument: (input) => firstLine(input.goal), result: "first-line" },
};

export const rewind: ToolDeclaration = {
  name: "rewind",
  load: () => import("../checkpoint.ts").then((module) => module.rewindTool),
  editor: () => ({ kind: "edit", title: "Rewind to the checkpoint" }),
  terminal: { argument: (input) => firstLine(input.report), result: "brief" },
};
