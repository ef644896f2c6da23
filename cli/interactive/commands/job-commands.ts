import type { Job } from "../../../core/shell/job.ts";
import type { CommandHost, SlashCommand } from "./commands.ts";
import { sessionJobManager } from "./shell.ts";

const USAGE = "/jobs [watch|kill <id>]";

/** `/jobs`: the session's background jobs; pick one to watch its output live or kill it. */
export const JOBS_COMMAND: SlashCommand = {
  name: "jobs",
  description: "background jobs: list, watch one's output, kill one",
  async run(host: CommandHost, args: string) {
    const jobs = await sessionJobManager(host.agent);
    const [action, idText] = args.split(/\s+/).filter(Boolean);
    const list = jobs.list();
    let job: Job | undefined;
    if (action) {
      job = list.find((candidate) => String(candidate.id) === idText);
      if (!job || (action !== "watch" && action !== "kill")) {
        host.notice("warning", job || !idText ? `Usage: ${USAGE}` : `No job ${idText}. ${list.length ? `Jobs: ${list.map((j) => j.id).join(", ")}.` : "There are no jobs."}`);
        return;
      }
    } else {
      if (list.length === 0) {
        host.notice("info", "No background jobs. The model starts them with bash background: true; Ctrl+B sends a running command to the background.");
        return;
      }
      job = await host.pick("Background jobs", list.map((candidate) => ({ label: candidate.summary(), value: candidate })));
      if (!job) return;
    }
    const chosen = job;
    const what = action ?? (await host.pick(`job ${chosen.id}`, [{ label: "watch its output", value: "watch" }, ...(chosen.running ? [{ label: "kill it", value: "kill" }] : [])]));
    if (what === "watch") {
      const { JobWatch } = await import("../widgets/job-watch.ts");
      return host.openPanel((changed) => new JobWatch(chosen, changed));
    }
    if (what === "kill") {
      if (!chosen.running) return host.notice("info", `${chosen.summary()} (already ended)`);
      chosen.stop("kill");
      await chosen.ended;
      host.notice("success", chosen.summary());
    }
  },
};
