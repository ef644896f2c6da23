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
