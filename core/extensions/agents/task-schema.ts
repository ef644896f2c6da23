import { z } from "zod";

/** Claude Code's Task tool input, so prompts and hooks written for it fit. */
export const TaskInput = z.strictObject({
  description: z.string().min(1).describe("A short (3-5 word) description of the task"),
  prompt: z.string().min(1).describe("The task for the agent to perform: everything it needs to know, since it sees nothing of this conversation"),
  subagent_type: z.string().min(1).describe("The type of specialized agent to use for this task"),
  isolated: z.boolean().optional().describe("Run in a fresh git worktree of the current files; its changes are applied here as one patch when it ends, or reported if they conflict"),
});
export type TaskInput = z.infer<typeof TaskInput>;
