import { readSync, writeSync } from "node:fs";
import type { ChangesQuestion, TrustQuestion } from "../../core/session-host/agent-config.ts";
import { describeChanges } from "../../core/session-host/trust-changes.ts";
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
  return yesOrNo(`  Trust ${folder}? [y/n] `);
}

/**
 * A trusted folder whose hooks, servers, rules or extensions changed since it was trusted (a pull,
 * or a file the model wrote): the diff, and y (trust the change, remembered) or n (skip it this
 * time, asked again next time). Asked before the UI starts, like the trust question.
 */
export async function askTrustChanges(question: ChangesQuestion): Promise<boolean | undefined> {
  const folder = displayPath(question.folder);
  const lines = [
    "",
    `  These files of ${folder} changed since you trusted it:`,
    "",
    ...describeChanges(question.changes)
      .split("\n")
      .map((line) => `    ${sanitizeLine(line)}`),
    "  Until you accept the change, what they add (hooks, MCP and language servers, allow rules, extensions) is skipped.",
    "",
  ];
  writeSync(1, lines.join("\n") + "\n");
  return yesOrNo(`  Trust the changed files? [y/n] `);
}

/** A line of a file shown on the terminal: its control characters visible, not acted on. */
function sanitizeLine(line: string): string {
  return line.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, (char) => `^${String.fromCharCode((char.charCodeAt(0) + 64) % 128)}`);
}

/** Asks `prompt` until y or n; undefined at end of input. */
function yesOrNo(prompt: string): boolean | undefined {
  for (;;) {
    writeSync(1, prompt);
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
