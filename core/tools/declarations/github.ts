import type { ToolDeclaration } from "../declare.ts";

export const github: ToolDeclaration = {
  name: "github",
  load: () => import("../github.ts").then((module) => module.githubTool),
  offered: (options) => options.github === true,
};
