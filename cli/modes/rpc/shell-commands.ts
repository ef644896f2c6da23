import type { RpcHandlers } from "./context.ts";

/** The host's own shell commands and the model's background jobs. */
export const SHELL_COMMANDS = {
  async bash(rpc, command) {
    const { host } = rpc;
    const busy = host.shell.running;
    // Answered when the command ends; meanwhile other commands (abort_bash among them) are read and handled.
    const answer = rpc.later("bash", command.id, async () => {
      const { output, isError, details } = await host.submit({ type: "bash", command: command.command });
      return { output, isError, details };
    });
    // One at a time: a second one is refused (answered above), the first one's answer still awaited.
    if (busy) return;
    rpc.bash = answer;
    void answer.finally(() => {
      if (rpc.bash === answer) rpc.bash = undefined;
    });
  },
  async abort_bash(rpc, command) {
    const running = rpc.host.shell.running;
    await rpc.host.submit({ type: "abort_bash" });
    // The command's own answer goes first.
    await rpc.bash;
    return rpc.respond("abort_bash", command.id, { aborted: running });
  },
  async get_jobs({ host, respond }, command) {
    const { jobsFor } = await import("../../../core/shell/jobs.ts");
    return respond("get_jobs", command.id, { jobs: jobsFor(host.view).list().map((job) => job.info()) });
  },
  async kill_job({ host, respond }, command) {
    const { jobsFor } = await import("../../../core/shell/jobs.ts");
    const jobs = jobsFor(host.view);
    const job = jobs.get(command.jobId);
    const wasRunning = job.running;
    await jobs.kill(job.id);
    return respond("kill_job", command.id, { killed: wasRunning, job: job.info() });
  },
} satisfies RpcHandlers;
