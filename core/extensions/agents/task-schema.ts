import { z } from "zod";

/** Claude Code's Task tool input, so prompts and hooks written for it fit. */
export const TaskInput = z.strictObject({
  description: z.string().min(1).describe("3-5 words"),
  prompt: z.string().min(1).describe("The task, with everything the agent needs to know"),
  subagent_type: z.string().min(1).describe("One of the agent types above"),
  isolated: z.boolean().optional().describe("Run in a fresh git worktree; its changes come back as one patch, or are reported if they conflict"),
});
export type TaskInput = z.infer<typeof TaskInput>;
