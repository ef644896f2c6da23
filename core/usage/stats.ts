import { type Dirent, openSync, readSync, closeSync, readdirSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { sessionsRoot } from "../paths.ts";
import { AGENT_CLIENT } from "./record.ts";
import { openAgentUsage } from "./usage-db.ts";

/** Totals of one group (a day, a model, a project): tokens in (cache included) and out, dollars, tool calls. */
export interface Totals {
  sessions: number;
  requests: number;
  input: number;
  /** Of `input`, the tokens read from the provider's prompt cache. */
  cacheRead: number;
  output: number;
  cost: number;
  toolCalls: number;
  /** Replies that ended in an error (the provider failed or refused the request), from the session files. */
  errors: number;
}

export interface SessionStats {
  since: string;
  /** Session files read (subagents' included), and those skipped (unreadable, too big). */
  files: number;
  skipped: number;
  sessions: number;
  subagentSessions: number;
  projects: number;
  total: Totals;
  byDay: Record<string, Totals>;
  byModel: Record<string, Totals>;
  /** By the session's working directory, from the session files (the usage store does not know projects). */
  byProject: Record<string, Totals>;
  /** Tool calls by tool name. */
  tools: Record<string, number>;
}

/** Session files are read whole: one past this is counted as skipped rather than read. */
const MAX_FILE_BYTES = 64 * 1024 * 1024;
/** The walk stops after this many files (the newest are not guaranteed first; the count says so). */
const MAX_FILES = 20_000;

const empty = (): Totals => ({ sessions: 0, requests: 0, input: 0, cacheRead: 0, output: 0, cost: 0, toolCalls: 0, errors: 0 });
const emptyCell = (): Cell => ({ requests: 0, input: 0, cacheRead: 0, output: 0, cost: 0, toolCalls: 0, errors: 0 });

/** Every `*.jsonl` under the sessions root modified since `sinceMs`, subagents' folders included. */
function sessionFiles(root: string, sinceMs: number): string[] {
  const found: string[] = [];
  const walk = (dir: string, depth: number) => {
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (found.length >= MAX_FILES) return;
      const path = join(dir, entry.name);
      if (entry.isDirectory() && depth < 6) walk(path, depth + 1);
      else if (entry.isFile() && entry.name.endsWith(".jsonl")) {
        try {
          if (statSync(path).mtimeMs >= sinceMs) found.push(path);
        } catch {
          // Gone since the listing: nothing to count.
        }
      }
    }
  };
  walk(root, 0);
  return found;
}

function readSmall(path: string): string | undefined {
  const size = statSync(path).size;
  if (size > MAX_FILE_BYTES) return undefined;
  const fd = openSync(path, "r");
  try {
    const buffer = Buffer.alloc(size);
    let read = 0;
    while (read < size) {
      const n = readSync(fd, buffer, read, size - read, read);
      if (n === 0) break;
      read += n;
    }
    return buffer.subarray(0, read).toString("utf8");
  } finally {
    closeSync(fd);
  }
}

function add(into: Cell, usage: { input?: number; output?: number; cacheRead?: number; cacheWrite?: number; cost?: { total?: number } }, failed: boolean): void {
  into.requests++;
  if (failed) into.errors++;
  into.input += (usage.input ?? 0) + (usage.cacheRead ?? 0) + (usage.cacheWrite ?? 0);
  into.cacheRead += usage.cacheRead ?? 0;
  into.output += usage.output ?? 0;
  into.cost += usage.cost?.total ?? 0;
}

/** One day's use of one model: the unit session files and the usage store both give. */
type Cell = Omit<Totals, "sessions">;

function addCell(into: Totals, cell: Cell): void {
  into.requests += cell.requests;
  into.input += cell.input;
  into.cacheRead += cell.cacheRead;
  into.output += cell.output;
  into.cost += cell.cost;
  into.toolCalls += cell.toolCalls;
  into.errors += cell.errors;
}

/**
 * The usage store's rows of the agent from `since` on, by day and model: every request omp made
 * (titles, summaries, runs without a session file included), each once — what `omp usage` sums.
 */
function recordedCells(env: NodeJS.ProcessEnv | undefined, since: string): Map<string, Cell> | undefined {
  const log = openAgentUsage(env);
  if (!log) return undefined;
  try {
    const cells = new Map<string, Cell>();
    for (const row of log.since(since)) {
      if (row.client !== AGENT_CLIENT) continue;
      const key = `${row.day} ${row.provider}/${row.model}`;
      const cell = cells.get(key) ?? emptyCell();
      cell.requests += row.requests;
      cell.input += row.input_tokens + row.cache_read_tokens + row.cache_write_tokens;
      cell.cacheRead += row.cache_read_tokens;
      cell.output += row.output_tokens;
      cell.cost += row.cost_usd;
      cells.set(key, cell);
    }
    return cells;
  } finally {
    log.close();
  }
}

/**
 * `omp stats`: sessions, tokens, cost and tool calls over the last `days` days, by day and by
 * model. Sessions, projects and tool calls come from the session files (a fork or handoff is a
 * session; a subagent's, in its parent's subagents/ folder, is counted apart; turns a fork copied
 * count once). Requests, tokens and cost come from the usage store `omp usage` reads, so the two
 * agree; a day and model the store has no row for (before it existed) is taken from the files.
 */
export function sessionStats(options: { env?: NodeJS.ProcessEnv; days: number; now?: number; root?: string }): SessionStats {
  const now = options.now ?? Date.now();
  const sinceMs = now - options.days * 86_400_000;
  const since = new Date(sinceMs).toISOString().slice(0, 10);
  const stats: SessionStats = { since, files: 0, skipped: 0, sessions: 0, subagentSessions: 0, projects: 0, total: empty(), byDay: {}, byModel: {}, byProject: {}, tools: {} };
  const projects = new Set<string>();
  // A fork copies the turns of its original with their ids and times: each is counted once.
  const turnsSeen = new Set<string>();
  const fromFiles = new Map<string, Cell>();
  for (const path of sessionFiles(options.root ?? sessionsRoot(options.env), sinceMs)) {
    let text: string | undefined;
    try {
      text = readSmall(path);
    } catch {
      text = undefined;
    }
    if (text === undefined) {
      stats.skipped++;
      continue;
    }
    stats.files++;
    let project: Totals | undefined;
    const daysSeen = new Set<string>();
    const modelsSeen = new Set<string>();
    let counted = false;
    for (const line of text.split("\n")) {
      if (line === "") continue;
      let entry: any;
      try {
        entry = JSON.parse(line);
      } catch {
        continue;
      }
      if (entry?.type === "session") {
        const subagent = basename(dirname(path)) === "subagents";
        if (typeof entry.cwd === "string") {
          projects.add(entry.cwd);
          project = stats.byProject[entry.cwd] ??= empty();
          if (!subagent) project.sessions++;
        }
        if (subagent) stats.subagentSessions++;
        else stats.sessions++;
        counted = true;
        continue;
      }
      const message = entry?.type === "message" ? entry.message : undefined;
      if (message?.role !== "assistant" || typeof entry.timestamp !== "string" || entry.timestamp.slice(0, 10) < since) continue;
      const turn = `${entry.id}@${entry.timestamp}`;
      if (turnsSeen.has(turn)) continue;
      turnsSeen.add(turn);
      const day = entry.timestamp.slice(0, 10);
      const model = `${message.provider}/${message.model}`;
      const key = `${day} ${model}`;
      const cell = fromFiles.get(key) ?? emptyCell();
      fromFiles.set(key, cell);
      const failed = message.stopReason === "error";
      add(cell, message.usage ?? {}, failed);
      if (project) add(project, message.usage ?? {}, failed);
      stats.byDay[day] ??= empty();
      stats.byModel[model] ??= empty();
      if (!daysSeen.has(day)) stats.byDay[day]!.sessions++;
      if (!modelsSeen.has(model)) stats.byModel[model]!.sessions++;
      daysSeen.add(day);
      modelsSeen.add(model);
      for (const part of Array.isArray(message.content) ? message.content : []) {
        if (part?.type !== "toolCall" || typeof part.name !== "string") continue;
        stats.tools[part.name] = (stats.tools[part.name] ?? 0) + 1;
        cell.toolCalls++;
        if (project) project.toolCalls++;
      }
    }
    if (!counted) stats.skipped++;
  }
  const recorded = recordedCells(options.env, since);
  const cells = new Map(fromFiles);
  // The files alone know tool calls and errors.
  for (const [key, cell] of recorded ?? []) cells.set(key, { ...cell, toolCalls: fromFiles.get(key)?.toolCalls ?? 0, errors: fromFiles.get(key)?.errors ?? 0 });
  for (const [key, cell] of cells) {
    const [day, model] = [key.slice(0, key.indexOf(" ")), key.slice(key.indexOf(" ") + 1)];
    addCell(stats.total, cell);
    addCell((stats.byDay[day] ??= empty()), cell);
    addCell((stats.byModel[model] ??= empty()), cell);
  }
  stats.projects = projects.size;
  stats.total.sessions = stats.sessions + stats.subagentSessions;
  return stats;
}
