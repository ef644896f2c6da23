import { textOf } from "../ai/transcript.ts";
import { withoutSystemNotes } from "./modes.ts";
import type { LoadedSession } from "./loader.ts";
import type { SessionEntry } from "./schema.ts";

/**
 * The session file's tree as people and front ends look at it: every entry with its label (rpc
 * get_tree), and the user turns, which are what /tree lists and moves between. Pure functions
 * over a loaded session; nothing here writes.
 */

const PREVIEW_CHARS = 200;

/** One entry of the tree, flat (parentId links them): deep nesting would not survive JSON on a long session. */
export interface TreeNode {
  id: string;
  parentId: string | null;
  type: string;
  timestamp: string;
  /** For a message entry. */
  role?: string;
  /** The first line of a message's text (cut), or what a bookkeeping entry records. */
  text: string;
  label?: string;
}

/** The labels in effect: the latest label entry per target, an empty one clearing it. */
export function labelsOf(entries: readonly SessionEntry[]): Map<string, string> {
  const labels = new Map<string, string>();
  for (const entry of entries) {
    if (entry.type !== "label") continue;
    if (entry.label?.trim()) labels.set(entry.targetId, entry.label.trim());
    else labels.delete(entry.targetId);
  }
  return labels;
}

function preview(entry: SessionEntry): string {
  let text: string;
  switch (entry.type) {
    case "message":
      // A user's turn is named by their words, not omp's notes for the model (plan mode's reminder).
      text = entry.message.role === "toolResult" ? `${entry.message.toolName} result` : textOf(entry.message.role === "user" && typeof entry.message.content !== "string" ? withoutSystemNotes(entry.message.content) : entry.message.content);
      if (!text && entry.message.role === "assistant") text = entry.message.content.flatMap((part) => (part.type === "toolCall" ? [`${part.name}(…)`] : [])).join(" ");
      break;
    case "compaction":
      text = entry.summary;
      break;
    case "model_change":
      text = entry.model;
      break;
    case "thinking_level_change":
      text = entry.thinkingLevel;
      break;
    case "mode_change":
      text = entry.mode;
      break;
    case "label":
      text = `${entry.targetId}: ${entry.label ?? "(cleared)"}`;
      break;
    case "custom":
      text = entry.customType;
      break;
    case "ttsr_injection":
      text = `rules injected: ${entry.injectedRules.join(", ")}`;
      break;
  }
  const line = (text.split("\n").find((candidate) => candidate.trim() !== "") ?? "").trim();
  return line.length > PREVIEW_CHARS ? `${line.slice(0, PREVIEW_CHARS - 1)}…` : line;
}

/** Every entry, in file order, with its label: rpc get_tree. */
export function treeNodes(session: LoadedSession): TreeNode[] {
  const labels = labelsOf(session.entries);
  return session.entries.map((entry) => {
    const label = labels.get(entry.id);
    return {
      id: entry.id,
      parentId: session.parents.get(entry.id) ?? null,
      type: entry.type,
      timestamp: entry.timestamp,
      ...(entry.type === "message" ? { role: entry.message.role } : {}),
      text: preview(entry),
      ...(label === undefined ? {} : { label }),
    };
  });
}

/** A user message and what answered it, as /tree shows it. */
export interface Turn {
  /** The user message's entry id. */
  id: string;
  text: string;
  timestamp: string;
  label?: string;
  /** The turns that follow this one; more than one where the session branched. */
  children: Turn[];
  /** On the path from the root to the current leaf. */
  onPath: boolean;
  /** The last entry of this turn along the current path, else along its newest line: where going to this turn puts the leaf. */
  endId: string;
}

export interface TurnTree {
  /** Turns without a turn before them: the first one, and any that started over from the root. */
  roots: Turn[];
  /** The turn the leaf is in, if any. */
  current: Turn | undefined;
  byId: Map<string, Turn>;
}

const isUser = (entry: SessionEntry | undefined) => entry?.type === "message" && entry.message.role === "user";

/**
 * The user turns of the session as a tree. One pass over the entries in file order, which has
 * every parent before its children, so the whole tree of a long session is built in linear time.
 */
export function turnTree(session: LoadedSession, leafId: string | null): TurnTree {
  const byEntry = new Map<string, SessionEntry>();
  const children = new Map<string | null, string[]>();
  for (const entry of session.entries) byEntry.set(entry.id, entry);
  for (const [id, parent] of session.parents) {
    const list = children.get(parent);
    if (list) list.push(id);
    else children.set(parent, [id]);
  }
  const onPath = new Set<string>();
  for (let id = leafId; id !== null && !onPath.has(id); id = session.parents.get(id) ?? null) onPath.add(id);

  const labels = labelsOf(session.entries);
  const byId = new Map<string, Turn>();
  const roots: Turn[] = [];
  // The turn each entry belongs to (the nearest user message at or above it).
  const turnOf = new Map<string, string | null>();
  for (const [id, parent] of session.parents) {
    const entry = byEntry.get(id);
    const parentTurn = parent === null ? null : (turnOf.get(parent) ?? null);
    if (!isUser(entry)) {
      turnOf.set(id, parentTurn);
      continue;
    }
    const message = entry as Extract<SessionEntry, { type: "message" }>;
    const label = labels.get(id);
    const turn: Turn = {
      id,
      text: preview(message),
      timestamp: message.timestamp,
      ...(label === undefined ? {} : { label }),
      children: [],
      onPath: onPath.has(id),
      endId: id,
    };
    byId.set(id, turn);
    turnOf.set(id, id);
    const above = parentTurn === null ? undefined : byId.get(parentTurn);
    if (above) above.children.push(turn);
    else roots.push(turn);
  }
  for (const turn of byId.values()) turn.endId = turnEnd(turn.id, children, byEntry, onPath);
  const leafTurn = leafId === null ? undefined : (turnOf.get(leafId) ?? undefined);
  return { roots, current: leafTurn ? byId.get(leafTurn) : undefined, byId };
}

/** From a user message down through its answer until the next user message: the current path's way where it goes, else the newest. */
function turnEnd(start: string, children: Map<string | null, string[]>, byEntry: Map<string, SessionEntry>, onPath: Set<string>): string {
  let at = start;
  for (;;) {
    const next = (children.get(at) ?? []).filter((id) => !isUser(byEntry.get(id)));
    if (next.length === 0) return at;
    at = next.find((id) => onPath.has(id)) ?? next.at(-1)!;
  }
}

/**
 * How many lines of work the session has: the message entries that no later message continues
 * (a label or a name written after one does not make it a new line). `links` is every entry's
 * parent, `messages` the ids of the message entries.
 */
export function countBranches(links: ReadonlyMap<string, string | null>, messages: ReadonlySet<string>): number {
  const continued = new Set<string>();
  const nearestMessage = new Map<string, string | null>();
  for (const [id, parent] of links) {
    const above = parent === null ? null : messages.has(parent) ? parent : (nearestMessage.get(parent) ?? null);
    nearestMessage.set(id, above);
    if (messages.has(id) && above !== null) continued.add(above);
  }
  let branches = 0;
  for (const id of messages) if (!continued.has(id)) branches++;
  return branches;
}
