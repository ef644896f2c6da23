import type { Subprocess } from "bun";
import type { TextContent } from "../../core/ai/messages.ts";
import type { View } from "./blocks.ts";
import { ToolBlock } from "./tool-block.ts";

/** Output offered to the model is cut to its last this many characters. */
const CONTEXT_CHARS = 30_000;

/**
 * `!command` in the editor: runs it with bash in the working directory, shows it like a bash tool
 * call, and offers its output to the model with the next message (`!!command` keeps it private).
 */
export class ShellRunner {
  private process: Subprocess<"ignore", "pipe", "ignore"> | undefined;
  private readonly context: TextContent[] = [];
  private serial = 0;
  /** The user stopped the running command: what it printed so far is not offered to the model. */
  private stopped = false;

  constructor(
    private readonly view: View,
    private readonly cwd: string,
    private readonly onChange: () => void,
  ) {}

  get running(): boolean {
    return this.process !== undefined;
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
    if (!this.process) return;
    this.stopped = true;
    try {
      process.kill(-this.process.pid, "SIGTERM");
    } catch {
      // Already gone.
    }
  }

  run(text: string, show: (block: ToolBlock) => void): void {
    const share = !text.startsWith("!!");
    const command = text.replace(/^!!?/, "").trim();
    if (command === "") return;
    const block = new ToolBlock(this.view, `shell-${++this.serial}`, "shell");
    show(block);
    if (this.process) {
      block.finished(result(block.id, "Another shell command is still running; wait for it or press Esc.", true, {}));
      return;
    }
    block.started({ command });
    const started = performance.now();
    const proc = Bun.spawn(["bash", "-c", `exec 2>&1\n${command}`], {
      cwd: this.cwd,
      stdin: "ignore",
      stdout: "pipe",
      stderr: "ignore",
      // Its own process group, so Esc stops everything it started.
      detached: true,
    });
    this.process = proc;
    this.stopped = false;
    void (async () => {
      let output = "";
      const decoder = new TextDecoder();
      for await (const chunk of proc.stdout) {
        const piece = decoder.decode(chunk, { stream: true });
        output += piece;
        if (output.length > 4 * CONTEXT_CHARS) output = output.slice(-2 * CONTEXT_CHARS);
        block.progress(piece);
        this.onChange();
      }
      const code = await proc.exited;
      this.process = undefined;
      const kept = output.length > CONTEXT_CHARS ? `[… earlier output cut]\n${output.slice(-CONTEXT_CHARS)}` : output;
      const status = proc.signalCode ? `killed by ${proc.signalCode}` : `exit code ${code}`;
      block.finished(result(block.id, kept.trimEnd() || "(no output)", code !== 0, { durationMs: Math.round(performance.now() - started), exitCode: code }));
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
