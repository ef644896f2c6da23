let stdinLines: AsyncIterator<string> | undefined;

/** The next line of stdin; empty at its end. */
export async function firstLine(prompt?: string): Promise<string> {
  if (prompt) process.stderr.write(prompt);
  stdinLines ??= (async function* () {
    let buffer = "";
    const decoder = new TextDecoder();
    for await (const chunk of Bun.stdin.stream()) {
      buffer += decoder.decode(chunk, { stream: true });
      for (let newline = buffer.indexOf("\n"); newline >= 0; newline = buffer.indexOf("\n")) {
        yield buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
      }
    }
    if (buffer !== "") yield buffer;
  })();
  const next = await stdinLines.next();
  return next.done ? "" : next.value;
}
