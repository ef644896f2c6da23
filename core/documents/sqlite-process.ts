import { ArchiveError, type ArchiveErrorKind } from "../archives/archive-error.ts";
import { formatBytes } from "../format-bytes.ts";
import { selfCommand } from "../self-command.ts";
import { readSqlite, SQLITE_QUERY_SECONDS, type SqliteSelector } from "./sqlite.ts";

/**
 * A SQLite read runs in a child omp (`omp __sqlite-read`), not in omp itself: SQLite's step is
 * native code that neither a worker's terminate nor a signal handler can stop (bun:sqlite has no
 * interrupt or progress handler), and a recursive CTE can step for hours. A child can be killed:
 * at the time limit, when the call is cancelled, and when omp is stopped (SIGINT/SIGTERM cancel
 * the call). The child opens the file read-only and checks the statement (sqlite-statement.ts).
 */
export const SQLITE_CHILD_COMMAND = "__sqlite-read";
/** 500 rows of cells cut at 200 characters fit well within this; more is a broken child. */
const MAX_ANSWER_BYTES = 16 * 1024 * 1024;

interface ChildRequest {
  path: string;
  name: string;
  table?: string;
  params: string;
}

type ChildAnswer = { text: string } | { error: { kind: ArchiveErrorKind; message: string } };

/** The child's side: one request on stdin, one answer on stdout. */
export async function serveSqliteRead(input: string): Promise<string> {
  const request = JSON.parse(input) as ChildRequest;
  let answer: ChildAnswer;
  try {
    answer = { text: readSqlite(request.path, request.name, { ...(request.table !== undefined ? { table: request.table } : {}), params: new URLSearchParams(request.params) }) };
  } catch (error) {
    answer = { error: { kind: error instanceof ArchiveError ? error.kind : "query", message: (error as Error).message } };
  }
  return JSON.stringify(answer);
}

/** readSqlite in a child omp, stopped at SQLITE_QUERY_SECONDS or when `signal` aborts. */
export async function readSqliteBounded(path: string, name: string, selector: SqliteSelector, signal: AbortSignal): Promise<string> {
  const request: ChildRequest = { path, name, ...(selector.table !== undefined ? { table: selector.table } : {}), params: selector.params.toString() };
  const child = Bun.spawn([...selfCommand(), SQLITE_CHILD_COMMAND], { stdin: "pipe", stdout: "pipe", stderr: "ignore" });
  let stopped: "time" | "cancelled" | undefined;
  const stop = (why: "time" | "cancelled") => {
    stopped ??= why;
    child.kill("SIGKILL");
  };
  const timer = setTimeout(() => stop("time"), SQLITE_QUERY_SECONDS * 1000);
  const onAbort = () => stop("cancelled");
  if (signal.aborted) onAbort();
  else signal.addEventListener("abort", onAbort, { once: true });
  try {
    child.stdin.write(JSON.stringify(request));
    await child.stdin.end();
    const chunks: Uint8Array[] = [];
    let size = 0;
    for await (const chunk of child.stdout) {
      size += chunk.length;
      if (size > MAX_ANSWER_BYTES) {
        child.kill("SIGKILL");
        throw new ArchiveError("too-large", `${name}: the answer passed ${formatBytes(MAX_ANSWER_BYTES)} and was dropped; select fewer columns or rows.`);
      }
      chunks.push(chunk);
    }
    await child.exited;
    if (stopped === "time") throw new ArchiveError("query", `${name}: the query ran past ${SQLITE_QUERY_SECONDS} s, the time limit for a read, and was stopped; narrow it (WHERE, LIMIT) or run it with bash (sqlite3).`);
    if (stopped === "cancelled") throw new ArchiveError("query", `${name}: the read was cancelled before the query finished.`);
    let answer: ChildAnswer;
    try {
      answer = JSON.parse(Buffer.concat(chunks).toString("utf8")) as ChildAnswer;
    } catch {
      throw new ArchiveError("query", `${name}: the SQLite reader ended without an answer (exit ${child.exitCode ?? child.signalCode}); the database may be damaged.`);
    }
    if ("error" in answer) throw new ArchiveError(answer.error.kind, answer.error.message);
    return answer.text;
  } finally {
    clearTimeout(timer);
    signal.removeEventListener("abort", onAbort);
    if (child.exitCode === null) child.kill("SIGKILL");
  }
}
