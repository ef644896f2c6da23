import type { Agent } from "../../../core/agent/agent.ts";
import type { TextContent } from "../../../core/ai/messages.ts";
import type { Job } from "../../../core/shell/job.ts";
import type { JobManager } from "../../../core/shell/jobs.ts";
import type { View } from "../render/blocks.ts";
import { ToolBlock } from "../render/tool-block.ts";

/** Output offered to the model is cut to its last this many characters. */
const CONTEXT_CHARS = 30_000;

/** The session's job manager, loaded on first use: the start-up path never needs the job code. */
export async function sessionJobManager(agent: Agent): Promise<JobManager> {
  const { jobsFor } = await import("../../../core/shell/jobs.ts");
  return jobsFor(agent);
}

/**
 * `!command` in the editor: runs it with bash in the working directory (a job of the session, so
 * everything it starts ends with it, and Ctrl+B sends it to the background), shows it like a bash
 * tool call, and offers its output to the model with the next message (`!!command` keeps it private).
 */
export class ShellRunner {
  private job: Job | undefined;
  private starting = false;
  private readonly context: TextContent[] = [];
  private serial = 0;
  /** The user stopped the running command: what it printed so far is not offered to the model. */
  private stopped = false;

  constructor(
    private readonly view: View,
    private readonly cwd: string,
    private readonly agent: () => Agent,
    private readonly onChange: () => void,
  ) {}

  get running(): boolean {
    return this.starting || this.job !== undefined;
  }

  get contextCount(): number {
    return this.context.length;
  }

  /** The outputs waiting to go with the next message; taking them empties the list. */
  takeContext(): TextContent[] {
    return this.context.splice(0);
  }

  clearContext(): void {
    this.context.length = 0;
  }

  stop(): void {
    if (!this.job) return;
    this.stopped = true;
    this.job.stop("abort");
  }

  run(text: string, show: (block: ToolBlock) => void): void {
    const share = !text.startsWith("!!");
    const command = text.replace(/^!!?/, "").trim();
    if (command === "") return;
    const block = new ToolBlock(this.view, `shell-${++this.serial}`, "shell");
    show(block);
    if (this.running) {
      block.finished(result(block.id, "Another shell command is still running; wait for it, press Esc, or send it to the background with Ctrl+B.", true, {}));
      return;
    }
    block.started({ command });
    this.starting = true;
    this.stopped = false;
    const agent = this.agent();
    void (async () => {
      const jobs = await sessionJobManager(agent);
      let job: Job;
      try {
        job = jobs.start({ command, cwd: this.cwd, artifactsDir: agent.artifactsDir, redact: (output) => agent.redact(output) }, false);
      } catch (error) {
        this.starting = false;
        block.finished(result(block.id, (error as Error).message, true, {}));
        this.onChange();
        return;
      }
      this.job = job;
      this.starting = false;
      const unsubscribe = job.onOutput((piece) => {
        if (piece === "") return;
        block.progress(piece);
        this.onChange();
      });
      const outcome = await Promise.race([job.ended, job.backgrounded]);
      unsubscribe();
      this.job = undefined;
      if (outcome === "background") {
        block.finished(result(block.id, `Continues in the background as job ${job.id}: /jobs to watch or kill it.`, false, { jobId: job.id }));
        if (share) {
          this.context.push({ type: "text", text: `The user started a shell command in the background as job ${job.id} (the job tool reads, writes to and kills it): ${JSON.stringify(command)}` });
        }
        this.onChange();
        return;
      }
      const end = outcome;
      const output = end.output.text;
      const kept = output.length > CONTEXT_CHARS ? `[… earlier output cut]\n${output.slice(-CONTEXT_CHARS)}` : output;
      const status = end.signal ? `killed by ${end.signal}` : `exit code ${end.exitCode}`;
      const failed = end.exitCode !== 0 || end.signal !== null;
      block.finished(result(block.id, kept.trimEnd() || "(no output)", failed, { durationMs: end.durationMs, exitCode: end.exitCode }));
      if (share && !this.stopped) {
        this.context.push({ type: "text", text: `The user ran a shell command (${status}):\n<shell command=${JSON.stringify(command)}>\n${kept.trimEnd()}\n</shell>` });
      }
      this.onChange();
    })();
  }
}

function result(id: string, text: string, isError: boolean, details: Record<string, unknown>) {
  return { role: "toolResult" as const, toolCallId: id, toolName: "shell", content: [{ type: "text" as const, text }], isError, details, timestamp: Date.now() };
}
