import type { Agent } from "../agent/agent.ts";
import type { TextContent } from "../ai/messages.ts";
import type { BashDetails } from "../tools/bash.ts";

/** Output offered to the model is cut to its last this many characters. */
const CONTEXT_CHARS = 30_000;

/** How a user's shell command ended, as the bash tool reports it (`details.jobId` when it went on in the background). */
export interface ShellOutcome {
  output: string;
  isError: boolean;
  details?: BashDetails;
}

/** `!cmd` typed as a message: the command, and whether its output is offered to the model (`!!cmd` keeps it private). */
export function shellLine(text: string): { command: string; share: boolean } | undefined {
  if (!text.startsWith("!")) return undefined;
  return { command: text.replace(/^!!?/, "").trim(), share: !text.startsWith("!!") };
}

/**
 * The user's own shell commands (`!cmd` in the terminal, rpc's bash), one at a time: run by the
 * bash tool's runner in the working directory as a job of the session (everything it starts ends
 * with it; Ctrl+B backgrounds it), not confined, since the user typed them. What a shared command
 * printed goes to the model with the next message.
 */
export class SessionShell {
  private running_: { controller: AbortController; done: Promise<void> } | undefined;
  private readonly context: TextContent[] = [];
  private tool: typeof import("../tools/bash.ts") | undefined;

  constructor(
    private readonly agent: () => Agent,
    /** The bash.timeoutSeconds setting. */
    private readonly timeoutSeconds: number,
  ) {}

  /** Loads the runner ahead of the first command (long-lived front ends), so that it starts at once. */
  async warm(): Promise<void> {
    this.tool ??= await import("../tools/bash.ts");
  }

  get running(): boolean {
    return this.running_ !== undefined;
  }

  /** Outputs waiting to go with the next message. */
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

  /** Stops the running command and waits for it to end; false when none runs. */
  async stop(): Promise<boolean> {
    const running = this.running_;
    if (!running) return false;
    running.controller.abort();
    await running.done;
    return true;
  }

  run(command: string, share: boolean, onOutput?: (piece: string) => void): Promise<ShellOutcome> {
    if (this.running_) return Promise.reject(new Error("a bash command is already running; wait for it, stop it (abort_bash, Esc), or send it to the background (Ctrl+B)"));
    const controller = new AbortController();
    const run = this.execute(command, share, controller.signal, onOutput);
    const running = { controller, done: run.then(() => undefined, () => undefined) };
    this.running_ = running;
    void running.done.then(() => {
      if (this.running_ === running) this.running_ = undefined;
    });
    return run;
  }

  private async execute(command: string, share: boolean, signal: AbortSignal, onOutput?: (piece: string) => void): Promise<ShellOutcome> {
    const agent = this.agent();
    // Loaded already (warm): the command starts before anything else is handled.
    const { bashTool } = this.tool ?? (await this.warm(), this.tool!);
    const result = await bashTool.execute(
      { command },
      { cwd: agent.options.cwd, signal, artifactsDir: agent.artifactsDir, redact: (text) => agent.redact(text), bashTimeoutSeconds: this.timeoutSeconds, jobScope: agent, ...(onOutput ? { onUpdate: onOutput } : {}) },
    );
    const output = result.content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("");
    const details = result.details as BashDetails | undefined;
    if (share && !signal.aborted) {
      const kept = output.length > CONTEXT_CHARS ? `[… earlier output cut]\n${output.slice(-CONTEXT_CHARS)}` : output;
      this.context.push({ type: "text", text: `The user ran a shell command:\n<shell command=${JSON.stringify(command)}>\n${kept.trimEnd()}\n</shell>` });
    }
    return { output, isError: result.isError ?? false, ...(details ? { details } : {}) };
  }
}
