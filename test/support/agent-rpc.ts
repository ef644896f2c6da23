// A small client for `omp --mode rpc` in tests: sends commands, awaits their responses by id, and
// waits for events in the order they arrived.
import type { Subprocess } from "bun";
import { type AgentRunOptions, LineReader, frames, spawnOmp } from "./agent-harness.ts";

export class RpcProcess {
  readonly child: Subprocess<"pipe", "pipe", "pipe">;
  readonly out: LineReader;
  readonly stderr: Promise<string>;
  private serial = 0;

  constructor(args: string[], options: AgentRunOptions) {
    this.child = spawnOmp(["--mode", "rpc", ...args], options);
    this.out = new LineReader(this.child.stdout);
    this.stderr = new Response(this.child.stderr).text();
  }

  /** Every frame so far, parsed. */
  get frames(): any[] {
    return frames(this.out.lines);
  }

  /** Writes one raw line. */
  writeLine(line: string): void {
    this.child.stdin.write(`${line}\n`);
    this.child.stdin.flush();
  }

  /** Sends a command with a fresh id and resolves with its response frame. */
  async send(command: Record<string, unknown>): Promise<any> {
    const id = `req_${++this.serial}`;
    const from = this.out.lines.length;
    this.writeLine(JSON.stringify({ id, ...command }));
    const line = await this.out.waitFor((l) => {
      try {
        const frame = JSON.parse(l);
        return frame.type === "response" && frame.id === id;
      } catch {
        return false;
      }
    }, from);
    return JSON.parse(line);
  }

  /** The first frame at or after line `from` matching `test`. */
  async waitFrame(test: (frame: any) => boolean, from = 0): Promise<any> {
    const line = await this.out.waitFor((l) => {
      try {
        return test(JSON.parse(l));
      } catch {
        return false;
      }
    }, from);
    return JSON.parse(line);
  }

  /** Index of the next line to arrive, for waiting on frames after now. */
  get mark(): number {
    return this.out.lines.length;
  }

  /** Sends a prompt and waits for its run's `agent_end` frame (which it returns). */
  async turn(message: string): Promise<any> {
    const mark = this.mark;
    const response = await this.send({ type: "prompt", message });
    if (response.success !== true) throw new Error(`prompt refused: ${JSON.stringify(response)}`);
    return this.waitFrame((f) => f.type === "agent_end", mark);
  }

  /** Closes stdin and waits for the exit code. */
  async close(): Promise<number> {
    this.child.stdin.end();
    const code = await this.child.exited;
    await this.out.done;
    return code;
  }
}
