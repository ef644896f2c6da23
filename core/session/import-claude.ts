import { statSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import type { AssistantMessage, Message, TextContent, ToolCall } from "../ai/messages.ts";
import { EXIT_USAGE } from "../errors/exit-codes.ts";
import { OmpError } from "../errors/omp-error.ts";
import { displayPath, expandHome, homeDir } from "../paths.ts";
import { type ImportOptions, ZERO_USAGE, readTranscript, textOf, writeImported } from "./import-foreign.ts";
import { dirNames } from "../fs/dir-names.ts";

/** Claude Code's folder for a project: `~/.claude/projects/<cwd with every other character a dash>`. */
export function claudeProjectDir(cwd: string, home: string = homeDir()): string {
  return join(home, ".claude", "projects", resolve(cwd).replace(/[^a-zA-Z0-9]/g, "-"));
}

/** The project's Claude Code sessions, newest first. */
export function claudeSessions(cwd: string, home?: string): string[] {
  const dir = claudeProjectDir(cwd, home);
  return dirNames(dir).filter((name) => name.endsWith(".jsonl")).map((name) => join(dir, name)).sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
}

/** `--from-claude [session]`: a path, else an id prefix among the project's sessions, else the newest one. */
function findTranscript(arg: string | true, cwd: string, home?: string): string {
  if (typeof arg === "string" && (/[/\\]/.test(arg) || arg.endsWith(".jsonl"))) return resolve(cwd, expandHome(arg, home));
  const sessions = claudeSessions(cwd, home);
  const found = typeof arg === "string" ? sessions.filter((path) => basename(path).startsWith(arg)) : sessions.slice(0, 1);
  const where = displayPath(claudeProjectDir(cwd, home));
  if (found.length === 0) throw new OmpError(`no Claude Code session ${typeof arg === "string" ? `matches "${arg}" ` : ""}in ${where}`, { exitCode: EXIT_USAGE });
  if (found.length > 1) throw new OmpError(`"${arg}" matches ${found.length} Claude Code sessions in ${where}; give more of the id`, { exitCode: EXIT_USAGE });
  return found[0]!;
}

type Block = { type?: unknown; text?: unknown; id?: unknown; name?: unknown; input?: unknown; tool_use_id?: unknown; content?: unknown; is_error?: unknown };

/**
 * The conversation of a Claude Code transcript as omp messages: its user and assistant lines of
 * the main thread (sidechains are subagents' own), tool calls and their results kept as pairs,
 * its bookkeeping lines (attachments, queue operations, request shapes) left out. Assistant lines
 * that continue one reply (Claude Code writes a line per content block) become one message.
 */
export function claudeMessages(text: string): { messages: Message[]; cwd?: string; title?: string } {
  const messages: Message[] = [];
  const toolNames = new Map<string, string>();
  let cwd: string | undefined;
  let title: string | undefined;
  let replyId: unknown;
  for (const line of text.split("\n")) {
    let entry: { type?: unknown; isSidechain?: unknown; isMeta?: unknown; message?: { id?: unknown; role?: unknown; content?: unknown; model?: unknown }; timestamp?: unknown; cwd?: unknown; summary?: unknown; aiTitle?: unknown };
    try {
      entry = JSON.parse(line);
    } catch {
      continue;
    }
    if (typeof entry?.cwd === "string") cwd ??= entry.cwd;
    if (entry?.type === "summary" && typeof entry.summary === "string") title = entry.summary;
    if ((entry?.type !== "user" && entry?.type !== "assistant") || entry.isSidechain === true || entry.isMeta === true || !entry.message) continue;
    const timestamp = typeof entry.timestamp === "string" ? Date.parse(entry.timestamp) || 0 : 0;
    const content = entry.message.content;
    if (entry.type === "user") {
      replyId = undefined;
      const blocks: Block[] = Array.isArray(content) ? content : [];
      for (const block of blocks.filter((b) => b?.type === "tool_result" && typeof b.tool_use_id === "string")) {
        const id = block.tool_use_id as string;
        messages.push({ role: "toolResult", toolCallId: id, toolName: toolNames.get(id) ?? "unknown", content: [{ type: "text", text: textOf(block.content) }], isError: block.is_error === true, timestamp });
      }
      const said = typeof content === "string" ? content : textOf(blocks.filter((b) => b?.type === "text"));
      if (said.trim() !== "") messages.push({ role: "user", content: [{ type: "text", text: said }], timestamp });
      continue;
    }
    const parts: (TextContent | ToolCall)[] = [];
    for (const block of (Array.isArray(content) ? content : []) as Block[]) {
      if (block?.type === "text" && typeof block.text === "string") parts.push({ type: "text", text: block.text });
      if (block?.type === "tool_use" && typeof block.id === "string" && typeof block.name === "string") {
        toolNames.set(block.id, block.name);
        parts.push({ type: "toolCall", id: block.id, name: block.name, arguments: block.input !== null && typeof block.input === "object" ? (block.input as Record<string, unknown>) : {} });
      }
    }
    if (parts.length === 0) continue;
    const last = messages.at(-1);
    if (last?.role === "assistant" && replyId !== undefined && replyId === entry.message.id) {
      last.content.push(...parts);
      if (parts.some((part) => part.type === "toolCall")) last.stopReason = "toolUse";
      continue;
    }
    replyId = entry.message.id;
    const reply: AssistantMessage = {
      role: "assistant",
      content: parts,
      api: "anthropic-messages",
      provider: "anthropic",
      model: typeof entry.message.model === "string" ? entry.message.model : "claude",
      usage: structuredClone(ZERO_USAGE),
      stopReason: parts.some((part) => part.type === "toolCall") ? "toolUse" : "stop",
      timestamp,
    };
    messages.push(reply);
  }
  return { messages, ...(cwd ? { cwd } : {}), ...(title ? { title } : {}) };
}

/** `--from-claude [session]`: the Claude Code session as a new omp session of the project; returns its path. */
export function importClaudeSession(arg: string | true, options: ImportOptions): string {
  const path = findTranscript(arg, options.cwd, options.home);
  const { messages, title } = claudeMessages(readTranscript(path, "Claude Code"));
  return writeImported(path, "Claude Code", "--from-claude", messages, title, options);
}
