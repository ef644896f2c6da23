import type { ToolDeclaration } from "../declare.ts";
import { firstLine, str } from "./text.ts";

/** Skills (core/extensions/skill-tool.ts), offered by the session when there are skills and no read tool. */
export const skill: ToolDeclaration = {
  name: "skill",
  editor: (input) => ({ kind: "read", title: `Skill ${str(input.name)}` }),
  terminal: { argument: (input) => firstLine(input.name) },
};
