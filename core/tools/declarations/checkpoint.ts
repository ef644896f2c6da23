import type { CodedToolDeclaration } from "../declare.ts";
import { firstLine, oneLine, str } from "./text.ts";

export const checkpoint: CodedToolDeclaration = {
  name: "checkpoint",
  order: 250,
  load: () => import("../checkpoint.ts").then((module) => module.checkpointTool),
  description: "Mark this point before a risky or exploratory change; rewind returns the files omp changed since and the conversation to it, keeping your report.",
  loadMode: "discoverable",
  effect: "read",
  editor: (input) => ({ kind: "think", title: `Checkpoint: ${oneLine(str(input.goal))}` }),
  terminal: { argument: (input) => firstLine(input.goal), result: "first-line" },
};

export const rewind: CodedToolDeclaration = {
  name: "rewind",
  order: 260,
  load: () => import("../checkpoint.ts").then((module) => module.rewindTool),
  description: "End the active checkpoint: the files omp changed since go back, the conversation returns to the checkpoint, and your report is kept.",
  loadMode: "discoverable",
  effect: "write",
  editor: () => ({ kind: "edit", title: "Rewind to the checkpoint" }),
  terminal: { argument: (input) => firstLine(input.report), result: "brief" },
};
