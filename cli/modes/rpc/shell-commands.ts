import { SessionError } from "../../../core/errors/session-error.ts";
import { bashTool } from "../../../core/tools/bash.ts";
import type { RpcHandlers } from "./context.ts";

/** The host's own shell commands and the model's background jobs. */
export const SHELL_COMMANDS = {
  async bash(rpc, command) {
    const { id } = command;
    const agent = rpc.agent;
    // Answered when the command ends; meanwhile other commands (abort_bash among them) are read and handled.
    if (rpc.bash) throw new SessionError("busy", "a bash command is already running; send abort_bash first");
    const controller = new AbortController();
    const run = bashTool
      .execute(
        { command: command.command },
        { cwd: rpc.runtime.options.cwd, signal: controller.signal, artifactsDir: agent.artifactsDir, redact: (text) => agent.redact(text), bashTimeoutSeconds: rpc.runtime.options.settings.bash.timeoutSeconds, jobScope: agent },
      )
      .then(
        (result) => {
          const output = result.content.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("");
          rpc.respond("bash", id, { output, isError: result.isError ?? false, details: result.details });
        },
        (error) => rpc.fail("bash", id, error),
      )
      .finally(() => {
        rpc.bash = undefined;
      });
    rpc.bash = { controller, run };
  },
  async abort_bash(rpc, command) {
    const { id } = command;
    const running = rpc.bash;
    running?.controller.abort();
    await running?.run;
    return rpc.respond("abort_bash", id, { aborted: running !== undefined });
  },
  async get_jobs(rpc, command) {
    const { id } = command;
    const agent = rpc.agent;
    const { jobsFor } = await import("../../../core/shell/jobs.ts");
    return rpc.respond("get_jobs", id, { jobs: jobsFor(agent).list().map((job) => job.info()) });
  },
  async kill_job(rpc, command) {
    const { id } = command;
    const agent = rpc.agent;
    const { jobsFor } = await import("../../../core/shell/jobs.ts");
    const jobs = jobsFor(agent);
    const job = jobs.get(command.jobId);
    const wasRunning = job.running;
    await jobs.kill(job.id);
    return rpc.respond("kill_job", id, { killed: wasRunning, job: job.info() });
  },
} satisfies RpcHandlers;
