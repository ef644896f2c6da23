import type { SearchStream } from "../../core/natives/api.ts";

/**
 * Copies a search stream to stdout natively, as its chunks arrive: they never become JS Buffers.
 * A reader that went away (`omp grep x | head -1`) stops the search at once and is not an error,
 * as with rg. Returns whether the whole stream was written.
 */
export async function pipeToStdout(stream: SearchStream): Promise<boolean> {
  try {
    return await stream.pipeTo(1);
  } finally {
    // Rejections (a bad root, a panic) end here too; the native threads must not outlive them.
    stream.close();
  }
}
