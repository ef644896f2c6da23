import { join } from "node:path";
import { agentDir, homeDir } from "../../paths.ts";
import type { Tool } from "../../tools/types.ts";
import type { AgentDefinition } from "./builtin.ts";
import { taskParameters } from "./task-spec.ts" with { type: "macro" };

const PARAMETERS = taskParameters();

/** Where agent files are found, lowest precedence first: a project's file replaces the user's of the same name. */
export function agentDirs(cwd: string, env: NodeJS.ProcessEnv): string[] {
  return [join(homeDir(), ".claude", "agents"), join(agentDir(env), "agents"), join(cwd, ".claude", "agents"), join(cwd, ".omp", "agents")];
}

/**
 * The `task` tool: runs a subagent with its own context, system prompt, tools and model. Its
 * description lists the agents, so the model knows which to pick. The code that runs them is
 * loaded on the first call.
 */
export function createTaskTool(agents: readonly AgentDefinition[]): Tool {
  let implementation: ReturnType<Tool["load"]> | undefined;
  return {
    name: "task",
    description: [
      "Run a subagent on a task in a fresh context: it sees only your prompt, so give it everything it needs; it answers with one final report.",
      "Several task calls in one reply run in parallel. Use it for broad searches and independent work, not for one known file or symbol.",
      "Agent types (subagent_type):",
      ...agents.map((agent) => `- ${agent.name}: ${agent.description.replace(/\s+/g, " ")}`),
    ].join("\n"),
    effect: "read",
    parameters: PARAMETERS,
    load: () => (implementation ??= import("./task-run.ts").then((module) => module.taskImplementation(agents))),
  };
}
