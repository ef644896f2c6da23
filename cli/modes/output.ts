import type { BunFile, FileSink } from "bun";

/**
 * Ordered writes to stdout or stderr through Bun's FileSink instead of process.stdout/stderr:
 * creating those Node streams costs about 18 ms in the compiled binary, which a headless run would
 * pay before its first token appears. Backpressure is the sink's; a reader that went away
 * (`omp -p … | head -1`) ends the output quietly, as any other write failure does.
 */
export class Output {
  private sink: FileSink | undefined;
  private closed = false;

  constructor(private readonly file: BunFile) {}

  write(text: string): void {
    if (this.closed || text === "") return;
    try {
      this.sink ??= this.file.writer();
      this.sink.write(text);
      const pending = this.sink.flush();
      if (pending instanceof Promise) pending.catch(() => this.close());
    } catch {
      this.close();
    }
  }

  /** Resolves once everything written so far has reached the file descriptor. */
  async flush(): Promise<void> {
    if (this.closed || !this.sink) return;
    try {
      await this.sink.flush();
    } catch {
      this.close();
    }
  }

  private close(): void {
    this.closed = true;
  }
}

export const stdout = new Output(Bun.stdout);
export const stderr = new Output(Bun.stderr);

/** One JSON value per line on stdout: json and rpc modes. */
export function writeLine(value: unknown): void {
  stdout.write(`${JSON.stringify(value)}\n`);
}
