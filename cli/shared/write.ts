import { writeSync } from "node:fs";

/**
 * Writes all of `text` to stdout. A reader that went away (`omp grep x | head`) is not an error:
 * the output was wanted only up to there.
 */
export async function writeStdout(text: string): Promise<void> {
  if (text === "") return;
  try {
    await Bun.write(Bun.stdout, text);
  } catch (error) {
    if ((error as { code?: string }).code !== "EPIPE") throw error;
  }
}

/**
 * Synchronous write for commander's help and errors, which cannot await. Uses the raw fd: creating
 * process.stdout costs ~18 ms in a compiled binary, and a closed pipe (`omp --help | head`) is
 * not an error worth a stack trace.
 */
export function writeFdQuietly(fd: 1 | 2, text: string): void {
  const bytes = Buffer.from(text);
  let offset = 0;
  try {
    while (offset < bytes.length) offset += writeSync(fd, bytes, offset);
  } catch (error) {
    if ((error as { code?: string }).code !== "EPIPE") throw error;
  }
}
