import type { CodedToolDeclaration } from "../declare.ts";
import { plural } from "../../plural.ts";

/** Offered only while a session is in plan mode (the session host adds it). */
export const exitPlanMode: CodedToolDeclaration = {
  name: "exit_plan_mode",
  load: () => import("../exit-plan-mode.ts").then((module) => module.exitPlanModeTool),
  description: "Present your finished plan for the user to approve. Once approved, plan mode ends and you carry the plan out.",
  effect: "read",
  editor: () => ({ kind: "think", title: "Present the plan for approval" }),
  terminal: { argument: (input) => (Array.isArray(input.steps) ? plural(input.steps.length, "step") : ""), result: "list" },
  claude: { names: ["ExitPlanMode"] },
};
