import { closeSync, existsSync, openSync, readFileSync, readSync, readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { OmpError } from "../errors/omp-error.ts";
import { displayPath, expandHome, sessionsRoot } from "../paths.ts";
import { type SessionDirOptions, idFromFileName, projectSessionDirs, sessionDirFor } from "./paths.ts";
import { countBranches } from "./tree.ts";
import { SYSTEM_NOTE } from "./modes.ts";
import { headerLineIndex, slotTitle } from "./title-slot.ts";
import { EXIT_USAGE } from "../errors/exit-codes.ts";
import { SESSION_NAME_ENTRY } from "./name-entry.ts";

export interface SessionInfo {
  path: string;
  id: string;
  cwd: string;
  /** The header's title, else the first line of the first user message (cut), else `(no messages)`. */
  title: string;
  created: Date;
  modified: Date;
  messageCount: number;
  /** The name given with /name (or rpc set_session_name), if any. */
  name?: string;
  /** The first line of the first user message (cut); empty when there is none. */
  firstPrompt: string;
  /** Lines of work in the file: messages no later message continues (1 for a session never branched). */
  branches: number;
}

const TITLE_LENGTH = 80;
const ENTRY_LINK = /^\{"type":"([a-z_]+)","id":"([^"]+)","parentId":(null|"([^"]+)")/;


interface SessionFile {
  path: string;
  name: string;
  id: string | undefined;
  modified: Date;
}

/** The `.jsonl` files in the dirs, newest first (by modification time, then name); none from a dir that does not exist. */
function sessionFiles(dirs: string | readonly string[]): SessionFile[] {
  const files = (typeof dirs === "string" ? [dirs] : dirs).flatMap(filesIn);
  return files.sort((a, b) => b.modified.getTime() - a.modified.getTime() || b.name.localeCompare(a.name));
}

function filesIn(dir: string): SessionFile[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw new OmpError(`cannot list sessions in ${displayPath(dir)}: ${(error as Error).message}`, { cause: error });
  }
  const files: SessionFile[] = [];
  for (const name of names) {
    if (!name.endsWith(".jsonl")) continue;
    const path = join(dir, name);
    try {
      const stat = statSync(path);
      if (stat.isFile()) files.push({ path, name, id: idFromFileName(name), modified: stat.mtime });
    } catch {
      // Deleted between readdir and stat, by another omp cleaning up: not a session any more.
    }
  }
  return files;
}

/** The first non-blank line, without terminal escape sequences or control characters that would garble a listing. */
export function cleanTitle(text: string): string {
  const visible = text.replace(/\u001b\[[0-9;?]*[ -/]*[@-~]/g, "");
  const line = (visible.split("\n").find((candidate) => candidate.trim() !== "") ?? "").replace(/\p{Cc}/gu, "").trim();
  return line.length > TITLE_LENGTH ? `${line.slice(0, TITLE_LENGTH - 1)}…` : line;
}

/**
 * What tells a fork apart from its original in pickers and listings: its name (the original's
 * latest one) or, unnamed, its title (the header's, else the first user message), each marked
 * "(fork)".
 */
export function forkLabel(headerTitle: string | undefined, entries: readonly { type: string; customType?: string; data?: unknown; message?: { role?: string; content?: unknown } }[]): { name: string } | { title: string } {
  const named = entries.findLast((entry) => entry.type === "custom" && entry.customType === SESSION_NAME_ENTRY)?.data as { name?: unknown } | undefined;
  if (typeof named?.name === "string" && named.name.trim() !== "") return { name: `${named.name.trim()} (fork)` };
  const firstUser = entries.find((entry) => entry.type === "message" && entry.message?.role === "user")?.message;
  return { title: `${cleanTitle(headerTitle ?? "") || (firstUser ? cleanTitle(userText(firstUser)) : "") || "session"} (fork)` };
}

function userText(message: { content?: unknown }): string {
  if (typeof message.content === "string") return message.content;
  if (!Array.isArray(message.content)) return "";
  // omp's notes for the model (hooks' context, memories) are not what the user asked.
  return message.content.map((part: { type?: unknown; text?: unknown }) => (part.type === "text" && typeof part.text === "string" && !part.text.startsWith(SYSTEM_NOTE) ? part.text : "")).join(" ");
}

/**
 * Summary of one session file without validating every entry: message lines are recognised by the
 * prefix the writer gives them, and only the first user message is parsed. Undefined for a file
 * whose first line is not a session header.
 */
function describe(file: SessionFile, search?: { maxBytes: number; texts: string[] }): SessionInfo | undefined {
  let lines: string[];
  let header: { type?: unknown; id?: unknown; cwd?: unknown; title?: unknown; timestamp?: unknown };
  try {
    lines = (search ? readHead(file.path, search.maxBytes) : readFileSync(file.path, "utf8")).split("\n");
    header = JSON.parse(lines[headerLineIndex(lines)] ?? "");
    const slot = slotTitle(lines);
    if (slot && header?.title === undefined) header.title = slot;
  } catch {
    // Unreadable, removed since it was listed, or not JSON: not a session to offer.
    return undefined;
  }
  if (header?.type !== "session" || typeof header.id !== "string") return undefined;
  let messageCount = 0;
  let firstUser: string | undefined;
  let named: string | undefined;
  const links = new Map<string, string | null>();
  const messageIds = new Set<string>();
  for (const line of lines) {
    // The writer puts type, id and parentId first: the tree's shape without parsing the entries.
    const link = ENTRY_LINK.exec(line);
    if (link) {
      links.set(link[2]!, link[4] ?? null);
      if (link[1] === "message") messageIds.add(link[2]!);
    }
    if (line.startsWith('{"type":"custom"') && line.includes(`"${SESSION_NAME_ENTRY}"`)) {
      try {
        const name = JSON.parse(line).data?.name;
        if (typeof name === "string") named = cleanTitle(name);
      } catch {
        // A torn line: the name before it stands.
      }
      continue;
    }
    if (!line.startsWith('{"type":"message"')) continue;
    messageCount++;
    if (search && line.includes('"role":"user"')) {
      try {
        const message = JSON.parse(line).message;
        if (message?.role === "user") search.texts.push(userText(message).slice(0, SEARCH_CHARS_PER_MESSAGE));
      } catch {
        // A torn line has nothing to find.
      }
    }
    if (firstUser === undefined && line.includes('"role":"user"')) {
      try {
        const message = JSON.parse(line).message;
        if (message?.role === "user") firstUser = cleanTitle(userText(message));
      } catch {
        // A torn line: the count already has it, the title comes from a later message.
      }
    }
  }
  const headerTitle = typeof header.title === "string" ? cleanTitle(header.title) : "";
  const created = typeof header.timestamp === "string" ? new Date(header.timestamp) : file.modified;
  return {
    path: file.path,
    id: header.id,
    cwd: typeof header.cwd === "string" ? header.cwd : "",
    title: named || headerTitle || firstUser || "(no messages)",
    created: Number.isNaN(created.getTime()) ? file.modified : created,
    modified: file.modified,
    messageCount,
    ...(named ? { name: named } : {}),
    firstPrompt: firstUser ?? "",
    branches: countBranches(links, messageIds),
  };
}

/**
 * The sessions in `dir`, most recently used first. With `limit`, only that many files are read:
 * listing is bounded by what is shown, not by how many sessions have piled up. `damaged` collects
 * the files passed over because their first line is not a session header.
 */
export function listSessions(dir: string | readonly string[], options: { limit?: number; damaged?: string[] } = {}): SessionInfo[] {
  const infos: SessionInfo[] = [];
  for (const file of sessionFiles(dir)) {
    if (options.limit !== undefined && infos.length >= options.limit) break;
    const info = describe(file);
    if (info) infos.push(info);
    else options.damaged?.push(file.path);
  }
  return infos;
}

const SEARCH_CHARS_PER_MESSAGE = 4000;

/** The first `maxBytes` of a file, cut back to its last complete line when there was more. */
export function readHead(path: string, maxBytes: number): string {
  const fd = openSync(path, "r");
  try {
    const buffer = Buffer.alloc(maxBytes);
    const read = readSync(fd, buffer, 0, maxBytes, 0);
    const text = buffer.subarray(0, read).toString("utf8");
    return read < maxBytes ? text : text.slice(0, text.lastIndexOf("\n") + 1);
  } finally {
    closeSync(fd);
  }
}

export interface SessionMatch {
  info: SessionInfo;
  /** Where the query matched: the name, or the start of the user message that matched best. */
  snippet: string;
  score: number;
}

/**
 * `/resume <text>`: the project's sessions whose name, title or user messages match every word of
 * `query`, exactly or loosely (letters in order within a word, or one typo), best first. Bounded:
 * the newest `maxFiles` sessions, and the first `maxBytes` of each.
 */
export function searchSessions(dir: string | readonly string[], query: string, options: { maxFiles?: number; maxBytes?: number } = {}): SessionMatch[] {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  const matches: SessionMatch[] = [];
  for (const file of sessionFiles(dir).slice(0, options.maxFiles ?? 200)) {
    const texts: string[] = [];
    const info = describe(file, { maxBytes: options.maxBytes ?? 1 << 20, texts });
    if (!info) continue;
    let best = { score: 0, snippet: "" };
    for (const text of [info.name ?? "", info.title, ...texts]) {
      const score = fuzzyScore(words, text.toLowerCase());
      if (score > best.score) best = { score, snippet: cleanTitle(text) };
    }
    // Every word somewhere in the session counts too, when no one message has them all.
    const whole = best.score > 0 ? best : { score: fuzzyScore(words, [info.name ?? "", info.title, ...texts].join(" ").toLowerCase()) / 2, snippet: info.title };
    if (whole.score > 0) matches.push({ info, snippet: whole.snippet, score: whole.score });
  }
  return matches.sort((a, b) => b.score - a.score || b.info.modified.getTime() - a.info.modified.getTime());
}

/** 0 unless every word matches: 3 for each found as it is, 1 for one found loosely. */
function fuzzyScore(words: readonly string[], text: string): number {
  if (words.length === 0) return 0;
  let score = 0;
  let tokens: string[] | undefined;
  for (const word of words) {
    if (text.includes(word)) {
      score += 3;
      continue;
    }
    tokens ??= text.split(/[^\p{L}\p{N}_]+/u).filter(Boolean);
    if (!tokens.some((token) => looselyMatches(word, token))) return 0;
    score += 1;
  }
  return score;
}

/** `parsr` for `parser`, `paresr` for `parser`: the letters in order with at most two more, or one letter changed, left out or swapped. */
function looselyMatches(word: string, token: string): boolean {
  if (word.length < 3 || Math.abs(token.length - word.length) > 2) return false;
  let at = 0;
  for (const char of token) if (char === word[at]) at++;
  if (at === word.length) return true;
  return word.length >= 4 && withinOneEdit(word, token);
}

function withinOneEdit(a: string, b: string): boolean {
  if (a.length === b.length) {
    const diff = [...a].flatMap((char, i) => (char === b[i] ? [] : [i]));
    return diff.length <= 1 || (diff.length === 2 && diff[1] === diff[0]! + 1 && a[diff[0]!] === b[diff[1]!] && a[diff[1]!] === b[diff[0]!]);
  }
  const [short, long] = a.length < b.length ? [a, b] : [b, a];
  if (long.length - short.length !== 1) return false;
  for (let i = 0; i < long.length; i++) if (long.slice(0, i) + long.slice(i + 1) === short) return true;
  return false;
}

/**
 * How much of each id `omp -r` shows so that every one is a prefix of its session alone: 8
 * characters, more when ids share their start (the original omp's ids begin with the time).
 */
export function uniqueIdLength(infos: readonly SessionInfo[]): number {
  const ids = infos.map((info) => info.id).sort();
  let length = 8;
  for (let i = 1; i < ids.length; i++) {
    const [a, b] = [ids[i - 1]!, ids[i]!];
    let shared = 0;
    while (shared < a.length && a[shared] === b[shared]) shared++;
    length = Math.max(length, shared + 1);
  }
  return length;
}

/** One line of `omp -r`: id (its first `idLength` characters), age, size, branches, then the name and the first prompt. */
export function sessionLine(info: SessionInfo, now: Date = new Date(), idLength = 8): string {
  const branches = info.branches > 1 ? `${info.branches} branches` : "";
  const what = info.name ? `${info.name}${info.firstPrompt ? ` — ${info.firstPrompt}` : ""}` : info.title;
  return `${info.id.slice(0, idLength).padEnd(idLength)}  ${formatAge(info.modified, now).padEnd(8)}  ${String(info.messageCount).padStart(4)} msgs  ${branches.padEnd(11)}  ${what}`;
}

/** `just now`, `5m ago`, `3h ago`, `2d ago`, then the date. */
export function formatAge(date: Date, now: Date = new Date()): string {
  const seconds = Math.max(0, (now.getTime() - date.getTime()) / 1000);
  if (seconds < 60) return "just now";
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m ago`;
  if (seconds < 86400) return `${Math.floor(seconds / 3600)}h ago`;
  if (seconds < 30 * 86400) return `${Math.floor(seconds / 86400)}d ago`;
  return date.toISOString().slice(0, 10);
}

/**
 * `--continue`: the most recently used session of the project, or undefined when it has none. A
 * file whose header is damaged is passed over (and added to `damaged`) instead of blocking -c.
 */
export function mostRecentSession(cwd: string, options: SessionDirOptions & { damaged?: string[] } = {}): string | undefined {
  return listSessions(projectSessionDirs(cwd, options), { limit: 1, damaged: options.damaged })[0]?.path;
}

/**
 * `--resume <arg>`: a path (anything with a slash or ending in `.jsonl`), or the start of a session
 * id or file name, case-insensitively. This project's sessions are searched first, then (unless a
 * session dir was given) every project's. More than one match is an error that lists them.
 */
export function resolveSession(arg: string, cwd: string, options: SessionDirOptions = {}): string {
  if (arg.trim() === "") throw new OmpError("--resume needs a session id, a prefix of one, or a path", { exitCode: EXIT_USAGE });
  if (/[/\\]/.test(arg) || arg.endsWith(".jsonl")) {
    const path = resolve(cwd, expandHome(arg, options.home));
    if (!existsSync(path)) throw new OmpError(`no session file at ${displayPath(path)}`, { exitCode: EXIT_USAGE });
    return path;
  }
  const prefix = arg.toLowerCase();
  const matches = (files: SessionFile[]) =>
    files.filter((file) => file.id?.toLowerCase().startsWith(prefix) || file.name.toLowerCase().startsWith(prefix));

  const localDir = sessionDirFor(cwd, options);
  let found = matches(sessionFiles(projectSessionDirs(cwd, options)));
  if (found.length === 0 && !options.sessionDir) {
    const root = sessionsRoot(options.env);
    const projectDirs = existsSync(root) ? readdirSync(root, { withFileTypes: true }).filter((entry) => entry.isDirectory()) : [];
    found = matches(projectDirs.flatMap((entry) => sessionFiles(join(root, entry.name))));
  }
  if (found.length === 1) return found[0]!.path;
  if (found.length === 0) {
    const where = options.sessionDir ? displayPath(localDir) : `${displayPath(localDir)} or any other project's sessions`;
    throw new OmpError(`no session matches "${arg}" in ${where}`, { exitCode: EXIT_USAGE });
  }

  found.sort((a, b) => b.modified.getTime() - a.modified.getTime());
  const shown = found.slice(0, 10).map((file) => {
    const info = describe(file);
    const elsewhere = info && info.cwd !== resolve(cwd) ? `  (${displayPath(info.cwd)})` : "";
    return `  ${file.id ?? file.name}  ${formatAge(file.modified)}  ${info?.title ?? "(unreadable)"}${elsewhere}`;
  });
  const more = found.length > shown.length ? `\n  … and ${found.length - shown.length} more` : "";
  throw new OmpError(`"${arg}" matches ${found.length} sessions; give more of the id:\n${shown.join("\n")}${more}`, { exitCode: EXIT_USAGE });
}
