import { readFileSync, statSync } from "node:fs";
import type { Message } from "../ai/messages.ts";
import { EXIT_USAGE } from "../errors/exit-codes.ts";
import { OmpError } from "../errors/omp-error.ts";
import { displayPath } from "../paths.ts";
import type { SessionDirOptions } from "./paths.ts";
import { cleanTitle } from "./listing.ts";
import { SessionWriter } from "./writer.ts";

/**
 * What the imports from Claude Code and Codex share: reading their transcript within a bound, and
 * writing the conversation as a new omp session of the project, which the caller then continues.
 */

/** A transcript bigger than this is refused rather than read into memory. */
const MAX_TRANSCRIPT_BYTES = 64 * 1024 * 1024;

export type ImportOptions = SessionDirOptions & { cwd: string; noSession: boolean };

export function readTranscript(path: string, what: string): string {
  try {
    const size = statSync(path).size;
    if (size > MAX_TRANSCRIPT_BYTES) throw new OmpError(`${displayPath(path)} is ${size} bytes, over the ${MAX_TRANSCRIPT_BYTES / 1024 / 1024} MB a ${what} session may have to be imported`, { exitCode: EXIT_USAGE });
    return readFileSync(path, "utf8");
  } catch (error) {
    if (error instanceof OmpError) throw error;
    throw new OmpError(`cannot read the ${what} session ${displayPath(path)}: ${(error as Error).message}`, { exitCode: EXIT_USAGE, cause: error });
  }
}

/** Text blocks of either tool's content, joined; a string as it is. */
export function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((block: { type?: unknown; text?: unknown }) => (typeof block?.text === "string" && /text$/.test(String(block.type)) ? block.text : "")).join("");
}

export const ZERO_USAGE = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };

/** The conversation as a new omp session (the transcript stays as it was); returns its path. */
export function writeImported(path: string, what: string, flag: string, messages: Message[], title: string | undefined, options: ImportOptions): string {
  if (options.noSession) throw new OmpError(`${flag} writes a new session file, so it cannot go with --no-session`, { exitCode: EXIT_USAGE });
  if (messages.length === 0) throw new OmpError(`${displayPath(path)} holds no conversation to import (is it a ${what} session file?)`, { exitCode: EXIT_USAGE });
  const firstUser = messages.find((message) => message.role === "user");
  const writer = SessionWriter.create({ ...options, title: title ?? (firstUser ? cleanTitle(textOf(firstUser.content)) : undefined) });
  try {
    for (const message of messages) writer.append({ type: "message", message });
  } finally {
    writer.close();
  }
  return writer.path;
}
