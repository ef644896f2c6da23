import { readFileSync } from "node:fs";
import type { Message } from "../ai/messages.ts";
import type { ThinkingLevel } from "../ai/model.ts";
import { OmpError, describeError } from "../errors/omp-error.ts";
import { displayPath } from "../paths.ts";
import { DROP_THINKING_ENTRY, withoutSignedThinking } from "../ai/preserved-thinking.ts";
import { compactionSummaryMessage } from "./compaction-summary.ts";
import type { SessionMode } from "./modes.ts";
import { type CompactionEntry, ENTRY_TYPES, SESSION_VERSION, SessionEntry, SessionHeader } from "./schema.ts";
import { issuePath, issueWords } from "../errors/zod-issues.ts";
import { NO_HEADER, headerLineIndex, slotTitle } from "./title-slot.ts";

/** A line that was skipped, or a repair made, while loading. */
export interface SessionProblem {
  /** 1-based line number in the file. */
  line: number;
  message: string;
}

export interface LoadedSession {
  path: string;
  header: SessionHeader;
  /** Every valid entry, in file order. */
  entries: SessionEntry[];
  /** The last entry in the file: where the session left off. Null when there are no entries. */
  leafId: string | null;
  /** Skipped lines and repaired links, for a warning; the rest of the session loaded fine. */
  problems: SessionProblem[];
  /** Each entry's parent after repairs; includes entries of types this version does not know. */
  parents: ReadonlyMap<string, string | null>;
}

/**
 * Reads a session file, keeping everything that can be kept. A torn last line (omp or the machine
 * stopped mid-write) and any malformed line elsewhere are skipped and reported; an entry whose
 * parent was on a skipped line is attached to the entry before it in the file, which in a linear
 * session is exactly what the lost one hung from. Entries of unknown types (a newer omp) are kept
 * as links in the tree but not used. Throws OmpError when the file is missing or has no valid header.
 */
export function loadSession(path: string): LoadedSession {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === "ENOENT";
    throw new OmpError(missing ? `no session file at ${displayPath(path)}` : `cannot read ${displayPath(path)}: ${describeError(error)}`, {
      exitCode: missing ? 2 : 1,
      cause: error,
    });
  }

  const lines = text.split("\n");
  // A file that ends in a newline splits into a last empty string, which is not a line.
  if (lines.at(-1) === "") lines.pop();
  const at = headerLineIndex(lines);
  const parsedHeader = parseHeader(lines[at], path);
  const slot = slotTitle(lines);
  const header = slot && parsedHeader.title === undefined ? { ...parsedHeader, title: slot } : parsedHeader;

  const problems: SessionProblem[] = [];
  const entries: SessionEntry[] = [];
  const order: string[] = [];
  const parents = new Map<string, string | null>();

  for (let index = at + 1; index < lines.length; index++) {
    const line = lines[index]!;
    const lineNumber = index + 1;
    if (line.trim() === "") continue;
    const json = parseJson(line);
    if (json === undefined) {
      const torn = index === lines.length - 1 && !text.endsWith("\n");
      problems.push({ line: lineNumber, message: torn ? "incomplete last line (omp stopped while writing it); skipped" : "not valid JSON; skipped" });
      continue;
    }
    const node = json as { type?: unknown; id?: unknown; parentId?: unknown };
    if (typeof node.id !== "string" || node.id === "" || !(typeof node.parentId === "string" || node.parentId === null) || typeof node.type !== "string") {
      problems.push({ line: lineNumber, message: "not a session entry (no type, id or parentId); skipped" });
      continue;
    }
    if (parents.has(node.id)) {
      problems.push({ line: lineNumber, message: `entry id ${node.id} is used twice; this one is skipped` });
      continue;
    }
    if (ENTRY_TYPES.has(node.type)) {
      const parsed = SessionEntry.safeParse(json);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        const where = issue && issuePath(issue) ? ` at ${issuePath(issue)}` : "";
        problems.push({ line: lineNumber, message: `invalid ${node.type} entry${where}: ${issue ? issueWords(issue) : "does not match the schema"}; skipped` });
        continue;
      }
      entries.push(parsed.data);
    }
    let parent = node.parentId as string | null;
    if (parent !== null && !parents.has(parent)) {
      const previous = order.at(-1) ?? null;
      problems.push({ line: lineNumber, message: `parent ${parent} of entry ${node.id} is missing; attached to ${previous ?? "the root"} instead` });
      parent = previous;
    }
    parents.set(node.id, parent);
    order.push(node.id);
  }

  return { path, header, entries, leafId: order.at(-1) ?? null, problems, parents };
}

function parseJson(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}

function parseHeader(line: string | undefined, path: string): SessionHeader {
  const json = line === undefined ? undefined : parseJson(line);
  const version = (json as { version?: unknown } | undefined)?.version;
  if (typeof version === "number" && version > SESSION_VERSION) {
    throw new OmpError(`${displayPath(path)} was written by a newer omp (session format ${version}); update omp to open it`);
  }
  const parsed = SessionHeader.safeParse(json);
  if (!parsed.success) throw new OmpError(`${displayPath(path)} is not an omp session file (${NO_HEADER}); resume another one (\`omp -r\` lists them) or start a new one`);
  return parsed.data;
}

/** The entries from the root to `leafId` (default: where the session left off), oldest first. */
export function branchEntries(session: LoadedSession, leafId: string | null = session.leafId): SessionEntry[] {
  const byId = new Map(session.entries.map((entry) => [entry.id, entry]));
  const path: SessionEntry[] = [];
  const seen = new Set<string>();
  for (let id = leafId; id !== null && !seen.has(id); id = session.parents.get(id) ?? null) {
    seen.add(id);
    const entry = byId.get(id);
    if (entry) path.push(entry);
  }
  return path.reverse();
}

/** Every message of the branch ending at `leafId`, compacted ones included: the whole conversation, for exports. */
export function conversationMessages(session: LoadedSession, leafId: string | null = session.leafId): Message[] {
  return branchEntries(session, leafId).flatMap((entry) => (entry.type === "message" ? [entry.message] : []));
}

/** What a resumed agent needs: the messages to send and the model and thinking level last chosen. */
export interface SessionContext {
  messages: Message[];
  /** `provider/id` from the last default-role model change, else from the last assistant message. */
  model?: string;
  /** From the last thinking-level change; undefined when the session never changed it (use the setting). */
  thinkingLevel?: ThinkingLevel;
  /** The compaction in effect, if any. */
  compaction?: CompactionEntry;
  /** From the last mode change; undefined when the session never changed mode. */
  mode?: SessionMode;
}

/**
 * The context of the branch ending at `leafId`: walk leaf→root, then replay root→leaf. With a
 * compaction on the branch, the latest one's summary comes first, then the messages from its
 * `firstKeptEntryId` up to it, then everything after it.
 */
export function buildSessionContext(session: LoadedSession, leafId: string | null = session.leafId): SessionContext {
  const path = branchEntries(session, leafId);
  const context: SessionContext = { messages: [] };
  let lastAssistantModel: string | undefined;
  let compactionIndex = -1;
  // Entries before this index carry thinking that was dropped (see preserved-thinking.ts).
  let dropBefore = -1;
  path.forEach((entry, index) => {
    if (entry.type === "custom" && entry.customType === DROP_THINKING_ENTRY) dropBefore = index;
    if (entry.type === "thinking_level_change") context.thinkingLevel = entry.thinkingLevel;
    else if (entry.type === "mode_change") context.mode = entry.mode;
    else if (entry.type === "model_change" && (entry.role ?? "default") === "default") context.model = entry.model;
    else if (entry.type === "message" && entry.message.role === "assistant") lastAssistantModel = `${entry.message.provider}/${entry.message.model}`;
    else if (entry.type === "compaction") compactionIndex = index;
  });
  context.model ??= lastAssistantModel;

  let replayFrom = 0;
  if (compactionIndex !== -1) {
    const compaction = path[compactionIndex] as CompactionEntry;
    context.compaction = compaction;
    context.messages.push(compactionSummaryMessage(compaction.summary, Date.parse(compaction.timestamp)));
    const kept = path.findIndex((entry) => entry.id === compaction.firstKeptEntryId);
    // A first kept entry that is not on this branch (or after the compaction) keeps nothing from before it.
    replayFrom = kept !== -1 && kept < compactionIndex ? kept : compactionIndex;
  }
  // Kept turns follow the summary now, not what they were produced after: the live agent
  // dropped their signed thinking when it compacted, and so does the replay.
  const unsignedUntil = Math.max(dropBefore, compactionIndex);
  for (let index = replayFrom; index < path.length; index++) {
    const entry = path[index]!;
    if (entry.type !== "message") continue;
    context.messages.push(index < unsignedUntil ? withoutSignedThinking([entry.message])[0]! : entry.message);
  }
  return context;
}
