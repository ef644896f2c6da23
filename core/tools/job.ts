import { declared } from "./declare.ts";
import { job as jobDeclaration } from "./declarations/job.ts";
import { z } from "zod";
import { decodeKeys } from "../shell/keys.ts";
import { jobsFor, MAX_WAIT_SECONDS } from "../shell/jobs.ts";
import { errorResult, textResult } from "./format.ts";
import type { ToolDefinition } from "./types.ts";

const schema = z.object({
  action: z.enum(["list", "read", "write", "kill"]).describe("What to do"),
  id: z.number().int().optional().describe("Job id"),
  input: z.string().optional().describe("write: text/keys to send"),
  wait_for: z.string().optional().describe("Regex to wait for in new output (pty: screen)"),
  timeout: z.number().min(0).max(MAX_WAIT_SECONDS).optional().describe("Seconds to wait for wait_for (default 30) or the end"),
});

export const jobTool: ToolDefinition<typeof schema> = {
  ...declared(jobDeclaration),
  schema,
  // Listing jobs and reading their output change nothing: only write and kill act.
  effectOf: (input) => (input.action === "list" || input.action === "read" ? "read" : "exec"),
  async execute(input, context) {
    const jobs = jobsFor(context.jobScope);
    if (input.action === "list") {
      const list = jobs.list();
      return textResult(list.length === 0 ? "No jobs." : list.map((job) => job.summary()).join("\n"));
    }
    if (input.id === undefined) return errorResult(`job ${input.action} needs the id of a job; list them with action "list".`);
    const job = jobs.get(input.id);
    const wait = {
      ...(input.wait_for === undefined ? {} : { waitFor: input.wait_for }),
      ...(input.timeout === undefined ? {} : { timeoutSeconds: input.timeout }),
      signal: context.signal,
    };
    switch (input.action) {
      case "read": {
        const { text, timedOut } = await jobs.read(job, wait);
        return timedOut ? errorResult(text) : textResult(text);
      }
      case "write": {
        if (input.input === undefined) return errorResult('job write needs input: the text or keys to send (e.g. "y\\r").');
        if (!job.running) return errorResult(`${job.summary()}\nIt has ended; nothing was sent.`);
        try {
          job.write(decodeKeys(input.input, await job.applicationCursor()));
        } catch (error) {
          return errorResult(`Could not write to job ${job.id}: ${(error as Error).message}. Only jobs started with background or pty read input.`);
        }
        const { text, timedOut } = await jobs.read(job, { ...wait, expectOutput: true });
        return timedOut ? errorResult(text) : textResult(text);
      }
      case "kill": {
        const wasRunning = job.running;
        await jobs.kill(job.id);
        const { text } = await jobs.read(job);
        return textResult(wasRunning ? text : `${text}\n(It had already ended.)`);
      }
    }
  },
};
