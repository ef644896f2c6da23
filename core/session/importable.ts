import { statSync } from "node:fs";
import { resolve } from "node:path";
import { claudeMessages, claudeSessions, importClaudeSession } from "./import-claude.ts";
import { codexMessages, codexSessionsDir, importCodexSession, projectRollouts } from "./import-codex.ts";
import { type ImportOptions, textOf } from "./import-foreign.ts";
import { cleanTitle, readHead } from "./listing.ts";
import type { Message } from "../ai/messages.ts";

/** A Claude Code session or Codex rollout of the project that `/resume` offers to continue in omp. */
export interface Importable {
  from: "Claude Code" | "Codex";
  path: string;
  title: string;
  modified: Date;
}

/** Each one's title is read from the first 256 KB only, and at most this many of each kind are offered. */
const HEAD_BYTES = 256 * 1024;
const PER_KIND = 10;

const firstPrompt = (messages: Message[]) => cleanTitle(textOf(messages.find((message) => message.role === "user")?.content));

/** The project's newest Claude Code sessions and Codex rollouts, newest first. */
export function importableSessions(cwd: string, env: NodeJS.ProcessEnv = process.env, home?: string): Importable[] {
  const project = resolve(cwd);
  const found: Importable[] = [];
  for (const path of claudeSessions(cwd, home).slice(0, PER_KIND)) {
    const title = firstPrompt(claudeMessages(readHead(path, HEAD_BYTES)).messages);
    if (title) found.push({ from: "Claude Code", path, title, modified: statSync(path).mtime });
  }
  for (const path of projectRollouts(codexSessionsDir(env, home), project, PER_KIND)) {
    const title = firstPrompt(codexMessages(readHead(path, HEAD_BYTES)));
    if (title) found.push({ from: "Codex", path, title, modified: statSync(path).mtime });
  }
  return found.sort((a, b) => b.modified.getTime() - a.modified.getTime());
}

/** Copies it into a new omp session of the project; returns that session's path. */
export function importSession(importable: Pick<Importable, "from" | "path">, options: ImportOptions): string {
  return importable.from === "Codex" ? importCodexSession(importable.path, options) : importClaudeSession(importable.path, options);
}
