import { closeSync, openSync, readSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import type { AssistantMessage, Message, TextContent, ToolCall } from "../ai/messages.ts";
import { EXIT_USAGE } from "../errors/exit-codes.ts";
import { OmpError } from "../errors/omp-error.ts";
import { displayPath, expandHome, homeDir } from "../paths.ts";
import { type ImportOptions, ZERO_USAGE, readTranscript, textOf, writeImported } from "./import-foreign.ts";
import { dirNames } from "../fs/dir-names.ts";

/** Codex's rollouts: `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl` (CODEX_HOME: `~/.codex`). */
export function codexSessionsDir(env: NodeJS.ProcessEnv = process.env, home: string = homeDir()): string {
  return join(env.CODEX_HOME ? resolve(expandHome(env.CODEX_HOME, home)) : join(home, ".codex"), "sessions");
}

/** Every rollout under the sessions dir, newest first (the names sort by time), at most 2,000 looked at. */
export function* rollouts(dir: string): Generator<string> {
  let seen = 0;
  function* walk(path: string, depth: number): Generator<string> {
    for (const name of dirNames(path).sort().reverse()) {
      if (seen >= 2000) return;
      if (depth < 3) yield* walk(join(path, name), depth + 1);
      else if (name.startsWith("rollout-") && name.endsWith(".jsonl")) {
        seen++;
        yield join(path, name);
      }
    }
  }
  yield* walk(dir, 0);
}

/** The newest `limit` rollouts made in `project`: the walk stops there, not after reading the first line of every one. */
export function projectRollouts(dir: string, project: string, limit: number): string[] {
  const found: string[] = [];
  for (const path of rollouts(dir)) {
    if (found.length >= limit) break;
    if (rolloutCwd(path) === project) found.push(path);
  }
  return found;
}

/** The cwd a rollout's first line (its session_meta) names, reading no more than that line. */
export function rolloutCwd(path: string): string | undefined {
  let fd: number | undefined;
  try {
    // Not a file (a folder by that name), unreadable or not a rollout: not the project's.
    fd = openSync(path, "r");
    const buffer = Buffer.alloc(64 * 1024);
    const text = buffer.subarray(0, readSync(fd, buffer, 0, buffer.length, 0)).toString("utf8");
    const meta = JSON.parse(text.slice(0, text.indexOf("\n") === -1 ? undefined : text.indexOf("\n")));
    return meta?.type === "session_meta" && typeof meta.payload?.cwd === "string" ? meta.payload.cwd : undefined;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** `--from-codex [session]`: a path, else an id prefix among the rollouts, else the project's newest. */
function findRollout(arg: string | true, options: ImportOptions): string {
  if (typeof arg === "string" && (/[/\\]/.test(arg) || arg.endsWith(".jsonl"))) return resolve(options.cwd, expandHome(arg, options.home));
  const dir = codexSessionsDir(options.env, options.home);
  const project = resolve(options.cwd);
  const found =
    typeof arg === "string"
      ? [...rollouts(dir)].filter((path) => basename(path, ".jsonl").replace(/^rollout-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-/, "").startsWith(arg))
      : projectRollouts(dir, project, 1);
  if (found.length === 0) throw new OmpError(`no Codex session ${typeof arg === "string" ? `matches "${arg}" ` : `of ${displayPath(project)} `}in ${displayPath(dir)}`, { exitCode: EXIT_USAGE });
  if (found.length > 1) throw new OmpError(`"${arg}" matches ${found.length} Codex sessions in ${displayPath(dir)}; give more of the id`, { exitCode: EXIT_USAGE });
  return found[0]!;
}

type Item = { type?: unknown; role?: unknown; content?: unknown; name?: unknown; arguments?: unknown; input?: unknown; call_id?: unknown; output?: unknown };

/** Codex's own context notes, sent as user messages: not what the user said. */
const CONTEXT_NOTE = /^\s*<(environment_context|user_instructions|permissions instructions|skills_instructions|turn_aborted)\b/;

function parseArguments(text: unknown): Record<string, unknown> {
  if (typeof text !== "string") return {};
  try {
    const parsed = JSON.parse(text);
    return parsed !== null && typeof parsed === "object" && !Array.isArray(parsed) ? parsed : { input: parsed };
  } catch {
    return { input: text };
  }
}

/**
 * The conversation of a Codex rollout as omp messages: its `response_item` lines — the user's and
 * the assistant's messages, function and custom tool calls with their outputs — in order; the
 * developer instructions, Codex's context notes and its event and state lines left out.
 */
export function codexMessages(text: string): Message[] {
  const messages: Message[] = [];
  const toolNames = new Map<string, string>();
  let model = "codex";
  for (const line of text.split("\n")) {
    let entry: { type?: unknown; timestamp?: unknown; payload?: Item & { model?: unknown } };
    try {
      entry = JSON.parse(line);
    } catch {
      continue;
    }
    if (entry?.type === "turn_context" && typeof entry.payload?.model === "string") model = entry.payload.model;
    if (entry?.type !== "response_item" || !entry.payload) continue;
    const item = entry.payload;
    const timestamp = typeof entry.timestamp === "string" ? Date.parse(entry.timestamp) || 0 : 0;
    const last = messages.at(-1);
    const reply = (parts: (TextContent | ToolCall)[]) => {
      if (last?.role === "assistant") {
        last.content.push(...parts);
        if (parts.some((part) => part.type === "toolCall")) last.stopReason = "toolUse";
        return;
      }
      const message: AssistantMessage = {
        role: "assistant",
        content: parts,
        api: "openai-responses",
        provider: "openai",
        model,
        usage: structuredClone(ZERO_USAGE),
        stopReason: parts.some((part) => part.type === "toolCall") ? "toolUse" : "stop",
        timestamp,
      };
      messages.push(message);
    };
    if (item.type === "message" && item.role === "user") {
      const said = textOf(item.content);
      if (said.trim() !== "" && !CONTEXT_NOTE.test(said)) messages.push({ role: "user", content: [{ type: "text", text: said }], timestamp });
    } else if (item.type === "message" && item.role === "assistant") {
      const said = textOf(item.content);
      if (said !== "") reply([{ type: "text", text: said }]);
    } else if ((item.type === "function_call" || item.type === "custom_tool_call") && typeof item.call_id === "string" && typeof item.name === "string") {
      toolNames.set(item.call_id, item.name);
      reply([{ type: "toolCall", id: item.call_id, name: item.name, arguments: item.type === "function_call" ? parseArguments(item.arguments) : { input: item.input } }]);
    } else if ((item.type === "function_call_output" || item.type === "custom_tool_call_output") && typeof item.call_id === "string") {
      const output = typeof item.output === "string" ? item.output : textOf((item.output as { content?: unknown } | undefined)?.content ?? item.output);
      messages.push({ role: "toolResult", toolCallId: item.call_id, toolName: toolNames.get(item.call_id) ?? "unknown", content: [{ type: "text", text: output }], isError: false, timestamp });
    }
  }
  return messages;
}

/** `--from-codex [session]`: the Codex rollout as a new omp session of the project; returns its path. */
export function importCodexSession(arg: string | true, options: ImportOptions): string {
  const path = findRollout(arg, options);
  return writeImported(path, "Codex", "--from-codex", codexMessages(readTranscript(path, "Codex")), undefined, options);
}
