import type { ToolDeclaration } from "../declare.ts";
import { firstLine, oneLine, str } from "./text.ts";

/** Subagents (core/extensions/agents), offered by the session when there are agents. */
export const task: ToolDeclaration = {
  name: "task",
  editor: (input) => ({ kind: "think", title: `Subagent: ${oneLine(str(input.description) || str(input.subagent_type) || "task")}` }),
  terminal: { argument: (input) => [firstLine(input.subagent_type), firstLine(input.description)].filter(Boolean).join(": ") },
  // `Task(reviewer)`: calls of that agent type.
  claude: { names: ["Task"], rules: ["Agent"], specifier: (specifier, input) => input.subagent_type === specifier },
};
