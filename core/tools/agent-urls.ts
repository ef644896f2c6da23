import { statSync } from "node:fs";
import { join } from "node:path";
import type { Message } from "../ai/messages.ts";
import { textOf } from "../ai/transcript.ts";
import { formatBytes } from "../format-bytes.ts";
import { conversationMessages, loadSession } from "../session/loader.ts";
import { errorResult, textResult } from "./format.ts";
import type { ReadRange } from "./internal-urls.ts";
import type { ReadDetails } from "./read-details.ts";
import { readTextOf } from "./read.ts";
import type { ToolContext, ToolResult } from "./types.ts";
import { dirNames } from "../fs/dir-names.ts";

/**
 * `agent://<id>` (a subagent's final output) and `history://<id>` (its transcript, concise), the
 * original omp's schemes over this session's subagents: each task run keeps its own session
 * under `<artifacts>/subagents/`, numbered here in the order they started.
 */

/** A subagent session past this is not loaded for a read. */
const MAX_SESSION_BYTES = 64 * 1024 * 1024;
/** What a transcript keeps of one tool call's arguments and one result. */
const CALL_CHARS = 300;
const RESULT_CHARS = 1500;

interface SubagentSession {
  id: number;
  path: string;
}

function subagentSessions(artifactsDir: string): SubagentSession[] {
  const dir = join(artifactsDir, "subagents");
  const names = dirNames(dir);
  // Session files begin with their creation time, so the name order is the start order.
  return names
    .filter((name) => name.endsWith(".jsonl"))
    .sort()
    .map((name, i) => ({ id: i + 1, path: join(dir, name) }));
}

function messagesOf(session: SubagentSession): { title: string; messages: Message[] } | string {
  const size = statSync(session.path).size;
  if (size > MAX_SESSION_BYTES) return `its session is ${formatBytes(size)}, over the ${formatBytes(MAX_SESSION_BYTES)} a read loads`;
  const loaded = loadSession(session.path);
  return { title: loaded.header.title ?? "", messages: conversationMessages(loaded) };
}

const cut = (text: string, max: number) => (text.length > max ? `${text.slice(0, max)}… [${text.length - max} more chars]` : text);

function finalOutput(messages: Message[]): string {
  const last = messages.findLast((message) => message.role === "assistant");
  return last?.role === "assistant" ? last.content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("\n").trim() : "";
}

function transcript(messages: Message[]): string {
  return messages
    .map((message) => {
      if (message.role === "user") return `[user]\n${textOf(message.content)}`;
      if (message.role === "toolResult") return `[${message.toolName} result${message.isError ? ", error" : ""}]\n${cut(textOf(message.content), RESULT_CHARS)}`;
      const parts = message.content.flatMap((part) => {
        if (part.type === "text") return [part.text];
        if (part.type === "toolCall") return [`→ ${part.name} ${cut(JSON.stringify(part.arguments), CALL_CHARS)}`];
        return [];
      });
      return `[assistant]\n${parts.join("\n")}`;
    })
    .join("\n\n");
}

/** `agent://` and `history://`: `scheme://` lists the subagents, `scheme://<id>` reads one. */
export async function readAgentUrl(url: string, range: ReadRange, context: ToolContext): Promise<ToolResult<ReadDetails>> {
  const scheme = url.slice(0, url.indexOf(":")).toLowerCase() as "agent" | "history";
  const wanted = url.slice(scheme.length + 3).replace(/^\/+|\/+$/g, "");
  const sessions = subagentSessions(context.artifactsDir);
  if (wanted === "") {
    if (sessions.length === 0) return textResult(`No subagent has run in this session yet (${scheme}:// is empty); the task tool starts one.`);
    const rows = sessions.map((session) => {
      const loaded = messagesOf(session);
      const title = typeof loaded === "string" ? loaded : cut(loaded.title || "(untitled)", 120);
      return `agent://${session.id}, history://${session.id} — ${title}`;
    });
    return textResult(`Subagents of this session (agent://<id>: final output; history://<id>: transcript):\n${rows.join("\n")}`);
  }
  const session = sessions.find((s) => String(s.id) === wanted);
  if (!session) {
    const known = sessions.map((s) => `${scheme}://${s.id}`).join(", ");
    return errorResult(`There is no ${scheme}://${wanted} in this session.${known ? ` Subagents: ${known}.` : " No subagent has run yet."}`);
  }
  const loaded = messagesOf(session);
  if (typeof loaded === "string") return errorResult(`${scheme}://${session.id} cannot be read: ${loaded}.`);
  if (scheme === "history") return readTextOf(`history://${session.id}`, transcript(loaded.messages), range);
  const output = finalOutput(loaded.messages);
  if (output === "") return textResult(`agent://${session.id} has no final output (it ended without a text reply); history://${session.id} shows what it did.`);
  return readTextOf(`agent://${session.id}`, output, range);
}
