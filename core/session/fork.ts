import { EXIT_USAGE } from "../errors/exit-codes.ts";
import { resolve } from "node:path";
import { OmpError } from "../errors/omp-error.ts";
import { writeFileAtomic } from "../fs/atomic-write.ts";
import { ensurePrivateDir } from "../paths.ts";
import { newEntryId, newSessionId } from "./ids.ts";
import { type LoadedSession, branchEntries } from "./loader.ts";
import { forkLabel } from "./listing.ts";
import { SESSION_NAME_ENTRY } from "./name-entry.ts";
import { type SessionDirOptions, sessionDirFor, sessionFileName } from "./paths.ts";
import { prepareForDisk } from "./persist.ts";
import { Redactor } from "./redact.ts";
import type { NewSessionEntry, SessionEntry, SessionHeader } from "./schema.ts";
import { SESSION_VERSION } from "./version.ts";

/**
 * New session files made from old ones: a fork (the path to a leaf, copied) and a handoff's fresh
 * start (one seed message). Either way the header's `parentSession` names the file it came from,
 * and the new file is written whole and renamed into place, so it is complete or absent.
 */

export interface SessionFileOptions extends SessionDirOptions {
  /** The project the new session belongs to. */
  cwd: string;
  title?: string;
}

function write(header: SessionHeader, entries: readonly SessionEntry[], options: SessionFileOptions): string {
  const dir = sessionDirFor(options.cwd, options);
  ensurePrivateDir(dir);
  const path = resolve(dir, sessionFileName(new Date(header.timestamp), header.id));
  const lines = [header, ...entries].map((line) => `${JSON.stringify(line)}\n`);
  writeFileAtomic(path, lines.join(""), { mode: 0o600 });
  return path;
}

function newHeader(cwd: string, parentSession: string, title: string | undefined): SessionHeader {
  return {
    type: "session",
    version: SESSION_VERSION,
    id: newSessionId(),
    timestamp: new Date().toISOString(),
    cwd: resolve(cwd),
    ...(title === undefined ? {} : { title }),
    parentSession,
  };
}

/**
 * Copies the path from the root to `leafId` (default: where the session left off) into a new
 * session of `options.cwd`'s project; other branches stay behind. Entries keep their ids, so
 * labels on the path still point at them. Returns the new file's path.
 */
export function forkSession(source: LoadedSession, options: SessionFileOptions & { leafId?: string | null }): string {
  const path = branchEntries(source, options.leafId === undefined ? source.leafId : options.leafId);
  const kept = new Set(path.map((entry) => entry.id));
  // Relinked as one line: an entry whose parent the loader repaired hangs below the one before it here too.
  const entries: SessionEntry[] = path
    .filter((entry) => entry.type !== "label" || kept.has(entry.targetId))
    .map((entry, index, all) => ({ ...entry, parentId: index === 0 ? null : all[index - 1]!.id }));
  if (options.title !== undefined) return write(newHeader(options.cwd, source.path, options.title), entries, options);
  // Marked "(fork)", so pickers and listings tell it from the original.
  const label = forkLabel(source.header.title, path);
  if ("title" in label) return write(newHeader(options.cwd, source.path, label.title), entries, options);
  const id = newEntryId(new Set(entries.map((entry) => entry.id)));
  const rename = { type: "custom", customType: SESSION_NAME_ENTRY, data: { name: label.name }, id, parentId: entries.at(-1)?.id ?? null, timestamp: new Date().toISOString() } as SessionEntry;
  return write(newHeader(options.cwd, source.path, source.header.title), [...entries, rename], options);
}

/** A new session of `options.cwd`'s project that starts with `entries`, linked to `parentSession`. Returns its path. */
export function seedSession(parentSession: string, seed: readonly NewSessionEntry[], options: SessionFileOptions): string {
  // Token-shaped strings and oversized text are kept out as from every entry (the caller removed the secrets it knows).
  const redactor = new Redactor();
  const taken = new Set<string>();
  let parentId: string | null = null;
  const entries = seed.map((entry) => {
    const id = newEntryId(taken);
    taken.add(id);
    const full = Object.assign({ type: entry.type, id, parentId, timestamp: new Date().toISOString() }, entry) as SessionEntry;
    parentId = id;
    return prepareForDisk(full, redactor);
  });
  return write(newHeader(options.cwd, parentSession, options.title), entries, options);
}

/** `omp --fork <session>`: the session (a path or an id prefix, as --resume takes it) forked into this project; the new file's path. */
export async function forkFromCli(arg: string, options: SessionFileOptions & { noSession: boolean }): Promise<string> {
  if (options.noSession) throw new OmpError("--fork writes a new session file, so it cannot go with --no-session", { exitCode: EXIT_USAGE });
  const { resolveSession } = await import("./listing.ts");
  const { loadSession } = await import("./loader.ts");
  return forkSession(loadSession(resolveSession(arg, options.cwd, options)), options);
}
