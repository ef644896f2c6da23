import { writeSync } from "node:fs";
import type { SearchStream } from "../../core/natives/api.ts";

/**
 * Copies a search stream to stdout as its chunks arrive, one write per chunk (the chunks are the
 * buffering). A reader that went away (`omp grep x | head -1`) stops the search at once and is not
 * an error, as with rg. Returns whether the whole stream was written.
 */
export async function pipeToStdout(stream: SearchStream): Promise<boolean> {
  try {
    for (let chunk = await stream.next(); chunk !== null; chunk = await stream.next()) {
      if (!(await writeAll(chunk))) {
        stream.close();
        return false;
      }
    }
    return true;
  } finally {
    // Rejections (a bad root, a panic) end here too; the native threads must not outlive them.
    stream.close();
  }
}

/** False when the reader is gone. The raw fd, as cli/shared/write.ts explains, blocks while the pipe is full. */
async function writeAll(chunk: Buffer): Promise<boolean> {
  let offset = 0;
  while (offset < chunk.length) {
    try {
      offset += writeSync(1, chunk, offset);
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === "EPIPE") return false;
      // stdout left non-blocking by whoever opened it: let Bun wait for it to drain.
      if (code !== "EAGAIN") throw error;
      try {
        await Bun.write(Bun.stdout, chunk.subarray(offset));
      } catch (late) {
        if ((late as { code?: string }).code === "EPIPE") return false;
        throw late;
      }
      return true;
    }
  }
  return true;
}
