import { describeError } from "../../../core/errors/omp-error.ts";
import type { JobManager } from "../../../core/shell/jobs.ts";
import type { SessionHost } from "../../../core/session-host/host.ts";
import { shellLine } from "../../../core/session-host/shell.ts";
import type { View } from "../render/blocks.ts";
import { ToolBlock } from "../render/tool-block.ts";

/** The session's job manager (the session's agent owns it), loaded on first use: the start-up path never needs the job code. */
export async function sessionJobManager(owner: object): Promise<JobManager> {
  const { jobsFor } = await import("../../../core/shell/jobs.ts");
  return jobsFor(owner);
}

/**
 * `!command` in the editor: the host's bash operation (its output offered to the model with the
 * next message; `!!command` keeps it private), shown like a bash tool call as it runs.
 */
export class ShellRunner {
  private serial = 0;

  constructor(
    private readonly view: View,
    private readonly host: SessionHost,
    private readonly onChange: () => void,
  ) {}

  get running(): boolean {
    return this.host.shell.running;
  }

  get contextCount(): number {
    return this.host.shell.contextCount;
  }

  stop(): void {
    void this.host.submit({ type: "abort_bash" });
  }

  run(text: string, show: (block: ToolBlock) => void): void {
    const line = shellLine(text);
    if (!line || line.command === "") return;
    const block = new ToolBlock(this.view, `shell-${++this.serial}`, "shell");
    show(block);
    if (this.running) {
      block.finished(result(block.id, "Another shell command is still running; wait for it, press Esc, or send it to the background with Ctrl+B.", true, {}));
      return;
    }
    block.started({ command: line.command });
    this.host
      .submit(
        { type: "bash", command: line.command, share: line.share },
        {
          output: (piece) => {
            block.progress(piece);
            this.onChange();
          },
        },
      )
      .then(({ output, isError, details }) => {
        const jobId = details?.jobId;
        const shown = jobId === undefined ? output.trimEnd() || "(no output)" : `Continues in the background as job ${jobId}: /jobs to watch or kill it.`;
        block.finished(result(block.id, shown, isError, { ...details }));
      })
      .catch((error) => block.finished(result(block.id, describeError(error), true, {})))
      .finally(() => this.onChange());
  }
}

function result(id: string, text: string, isError: boolean, details: Record<string, unknown>) {
  return { role: "toolResult" as const, toolCallId: id, toolName: "shell", content: [{ type: "text" as const, text }], isError, details, timestamp: Date.now() };
}
