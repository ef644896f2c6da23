import { readSync, writeSync } from "node:fs";
import type { TrustQuestion } from "../../core/session-host/agent-config.ts";
import { displayPath } from "../../core/paths.ts";

/**
 * The interactive mode's question in a folder nobody decided on, asked on the terminal before the
 * UI starts (nothing from the folder has been applied yet): what trusting it would change, and
 * y or n, both remembered. End of input answers nothing: untrusted this time, asked again next time.
 */
export async function askFolderTrust(question: TrustQuestion): Promise<boolean | undefined> {
  const folder = displayPath(question.folder);
  const lines = [
    "",
    `  ${folder} is not a trusted folder.`,
    "  Trusting it lets its files do what omp otherwise skips here:",
    ...question.changes.map((change) => `    • ${change}`),
    "",
    "  Only trust a folder whose files you know. The answer is remembered (omp trust --revoke forgets it).",
    "",
  ];
  writeSync(1, lines.join("\n") + "\n");
  for (;;) {
    writeSync(1, `  Trust ${folder}? [y/n] `);
    const line = readLine();
    if (line === undefined) {
      writeSync(1, "\n");
      return undefined;
    }
    const answer = line.trim().toLowerCase();
    if (answer === "y" || answer === "yes") return true;
    if (answer === "n" || answer === "no") return false;
  }
}

/** One line typed on the terminal (its own line editing applies), or undefined at end of input. */
function readLine(): string | undefined {
  const buffer = Buffer.alloc(1024);
  let text = "";
  for (;;) {
    let read: number;
    try {
      read = readSync(0, buffer, 0, buffer.length, null);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "EAGAIN") {
        Bun.sleepSync(20);
        continue;
      }
      return undefined;
    }
    if (read === 0) return text === "" ? undefined : text;
    text += buffer.toString("utf8", 0, read);
    if (text.includes("\n")) return text.slice(0, text.indexOf("\n"));
  }
}
