import { copyFileSync, existsSync, lstatSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type GitResult, OMP_IDENTITY, gitAsync, gitSync } from "../../git/run.ts";
import { findRepo, type Repo } from "../../git/repo.ts";
import { looseBlob } from "./index-file.ts";
import { sha256 } from "./store.ts";

/**
 * A private index of a git work tree, for what commands change, kept in a git folder of its own
 * with the session's checkpoints (the objects go to the repository's own store):
 *
 * - refreshed from stat data, so only files that changed are read (the first one starts from a
 *   copy of the user's index); the user's index, HEAD, branches and work tree are never touched;
 * - with its own configuration and attributes, so nothing the model wrote into the repository's
 *   `.git/config`, `.git/info/attributes` or `.gitattributes` runs (fsmonitor, hooks, filters) or
 *   changes the bytes stored (eol and encoding conversions): the index holds the files as they are.
 *
 * A turn's first state is also kept as a commit under refs/omp/checkpoints/<session>, outside
 * refs/heads (so `git gc` keeps it); trees are made otherwise only for commands that overlap.
 */

/** Longest one git step may take: a work tree too big for that is not snapshotted again this process (see {@link Snapshots.pending}). */
const GIT_TIMEOUT_MS = 5_000;
/** Work trees whose snapshot failed or took too long: every command would pay for it again. */
const givenUp = new Set<string>();
/** Copies of private indexes made for {@link Snapshots.keepLater}, numbered. */
let keeps = 0;
/** Every path stored as it is on disk, whatever the repository's attributes say (this file outranks them). */
const ATTRIBUTES = "* -text -eol -crlf -filter -ident -working-tree-encoding\n";

const text = (out: Buffer) => out.toString("utf8").trim();

/** The paths that differ from the private index: modified, deleted, and untracked but not ignored. */
const PENDING = ["ls-files", "-z", "--modified", "--deleted", "--others", "--exclude-standard"];
const pendingOf = (listed: GitResult) => (listed.ok ? [...new Set(listed.out.toString("utf8").split("\0").filter(Boolean))] : undefined);

/** What one command's changes may copy into git's object store (or read into memory), per file and in all. */
export const MAX_FILE_BYTES = 50 * 1024 * 1024;
export const MAX_BYTES = 200 * 1024 * 1024;

/** The ref a session's snapshots hang from. */
export const snapshotRef = (sessionId: string) => `refs/omp/checkpoints/${sessionId.replace(/[^A-Za-z0-9._-]/g, "_")}`;

/** One work tree's snapshots for one session (made per command): `checkpointDir` is where the session keeps its checkpoints. */
export class Snapshots {
  /** The private git folder. */
  readonly dir: string;
  private readonly objectsDir: string;
  private readonly env: Record<string, string>;
  private prepared = false;

  constructor(
    readonly repo: Repo,
    checkpointDir: string,
  ) {
    this.dir = join(checkpointDir, `git-${sha256(Buffer.from(repo.root)).slice(0, 12)}`);
    this.objectsDir = join(repo.commonDir, "objects");
    this.env = { GIT_DIR: this.dir, GIT_WORK_TREE: repo.root, GIT_OBJECT_DIRECTORY: this.objectsDir, GIT_INDEX_FILE: join(this.dir, "index"), ...OMP_IDENTITY };
  }

  private git(args: string[], input?: string): GitResult {
    return gitSync(args, { cwd: this.repo.root, env: this.env, timeoutMs: GIT_TIMEOUT_MS, ...(input === undefined ? {} : { input }) });
  }

  /** The private folder, made on first use; the user's ignore list copied in when it changed. */
  private prepare(): void {
    if (this.prepared) return;
    this.prepared = true;
    const info = join(this.dir, "info");
    if (!existsSync(join(this.dir, "HEAD"))) {
      mkdirSync(join(this.dir, "refs"), { recursive: true, mode: 0o700 });
      mkdirSync(info, { recursive: true });
      const sha256Repo = /^\s*objectformat\s*=\s*sha256\s*$/im.test(readOr(join(this.repo.commonDir, "config")));
      const config = ["[core]", `\trepositoryformatversion = ${sha256Repo ? 1 : 0}`, "\tbare = false", "\tfsmonitor = false", "\thooksPath = /dev/null", "\tuntrackedCache = true", "\tautocrlf = false"];
      if (sha256Repo) config.push("[extensions]", "\tobjectformat = sha256");
      writeFileSync(join(this.dir, "config"), `${config.join("\n")}\n`);
      writeFileSync(join(info, "attributes"), ATTRIBUTES);
      writeFileSync(join(this.dir, "HEAD"), "ref: refs/heads/omp\n");
      const userIndex = join(this.repo.gitDir, "index");
      if (existsSync(userIndex)) copyFileSync(userIndex, join(this.dir, "index"));
    }
    const exclude = readOr(join(this.repo.commonDir, "info", "exclude"));
    if (readOr(join(info, "exclude")) !== exclude) writeFileSync(join(info, "exclude"), exclude);
  }

  /** Runs `step` with the private folder in place; a failure (a read-only .git, a full disk) gives up on this work tree for the process. */
  private guarded<T>(step: () => T | undefined): T | undefined {
    if (givenUp.has(this.repo.root)) return undefined;
    try {
      this.prepare();
      const result = step();
      if (result === undefined) givenUp.add(this.repo.root);
      return result;
    } catch {
      givenUp.add(this.repo.root);
      return undefined;
    }
  }

  /**
   * The paths (relative to the root) whose files differ from the private index: modified, deleted
   * and untracked ones, ignored ones left out — one git call, with stat data deciding which files
   * are read at all.
   */
  pending(): string[] | undefined {
    return this.guarded(() => {
      let listed = this.git(PENDING);
      if (!listed.ok) {
        // An index git cannot use here (a split index copied from the user's): start a fresh one.
        rmSync(this.index, { force: true });
        listed = this.git(PENDING);
      }
      return pendingOf(listed);
    });
  }

  /**
   * {@link pending} with git in the background: `beside` runs on this thread meanwhile (work the
   * command would wait for anyway). Undefined when git could not say (then given up on, as there).
   */
  async pendingBeside(beside: () => void): Promise<string[] | undefined> {
    const options = { cwd: this.repo.root, env: this.env, timeoutMs: GIT_TIMEOUT_MS };
    const first = this.usable() ? gitAsync(PENDING, options) : undefined;
    beside();
    if (!first) return undefined;
    let paths: string[] | undefined;
    try {
      let listed = await first;
      if (!listed.ok) {
        rmSync(this.index, { force: true });
        listed = await gitAsync(PENDING, options);
      }
      paths = pendingOf(listed);
    } catch {
      paths = undefined;
    }
    if (!paths) givenUp.add(this.repo.root);
    return paths;
  }

  /** Whether the private folder is in place (made now, on first use) and git has not been given up on here. */
  private usable(): boolean {
    return this.guarded(() => true) === true;
  }

  /**
   * Whether the files `paths` would copy into git's object store stay within the limits; past
   * them the command is left unsnapshotted (not restorable) rather than the disk filled.
   */
  withinLimits(paths: readonly string[]): boolean {
    let total = 0;
    for (const path of paths) {
      const size = lstatSync(join(this.repo.root, path), { throwIfNoEntry: false })?.size ?? 0;
      total += size;
      if (size > MAX_FILE_BYTES || total > MAX_BYTES) return false;
    }
    return true;
  }

  /** The private index file. */
  get index(): string {
    return join(this.dir, "index");
  }

  /** The length of the repository's object ids: 32 in a sha256 repository. */
  hashBytes(): number {
    return /^\s*objectformat\s*=\s*sha256\s*$/im.test(readOr(join(this.repo.commonDir, "config"))) ? 32 : 20;
  }

  /** Puts `paths` into the private index as they are on disk now (added, changed or removed). */
  update(paths: readonly string[]): boolean {
    if (paths.length === 0) return true;
    return this.guarded(() => this.git(["update-index", "--add", "--remove", "--replace", "-z", "--stdin"], stdinPaths(paths)).ok || undefined) === true;
  }

  /** {@link update} in the background of other work (the next command waits for it); `rewrite`: the index is written even when no path changed, which settles it once a second has passed. */
  async updateLater(paths: readonly string[], rewrite = false): Promise<boolean> {
    if (paths.length === 0 && !rewrite) return true;
    const result = await gitAsync(["update-index", "--add", "--remove", "--replace", ...(rewrite ? ["--force-write-index"] : []), "-z", "--stdin"], { cwd: this.repo.root, env: this.env, timeoutMs: GIT_TIMEOUT_MS, input: stdinPaths(paths) });
    return result.ok;
  }

  /** Brings the private index to the work tree as it is now (`listed`: what {@link pendingBeside} just found differs); false when git failed or the files are over the limits. */
  sync(listed?: readonly string[]): boolean {
    const paths = listed ?? this.pending();
    return paths !== undefined && this.withinLimits(paths) && this.update(paths);
  }

  /** The private index as a tree. */
  tree(): string | undefined {
    return this.guarded(() => {
      const tree = this.git(["write-tree"]);
      return tree.ok ? text(tree.out) : undefined;
    });
  }

  /** `tree` as the newest commit under `ref` in the user's repository (so `git gc` keeps it). */
  keep(tree: string, ref: string, env = this.env): void {
    const commit = gitSync(this.commitArgs(tree), { cwd: this.repo.root, env, timeoutMs: GIT_TIMEOUT_MS });
    if (!commit.ok) return;
    const sha = text(commit.out);
    if (gitSync(["update-ref", ref, sha], this.refOptions()).ok) writeFileSync(this.chain, sha);
  }

  /**
   * {@link tree} and {@link keep} of the private index as it is now, while the caller goes on: git
   * works from a copy of the index, so the index itself may change meanwhile. `settle()` does at
   * once what has not been done yet (at exit, when the background git would be cut short).
   */
  keepLater(ref: string): { done: Promise<void>; settle(): void } {
    let settled = false;
    const copies: string[] = [];
    const from = () => {
      const copy = join(this.dir, `index.keep-${process.pid}-${++keeps}`);
      copies.push(copy);
      copyFileSync(this.index, copy);
      return { ...this.env, GIT_INDEX_FILE: copy };
    };
    const clean = () => {
      for (const copy of copies) rmSync(copy, { force: true });
    };
    let env: Record<string, string>;
    try {
      env = from();
    } catch {
      clean();
      return { done: Promise.resolve(), settle() {} };
    }
    const options = { cwd: this.repo.root, env, timeoutMs: GIT_TIMEOUT_MS };
    const done = (async () => {
      const tree = await gitAsync(["write-tree"], options);
      if (settled || !tree.ok) return;
      const commit = await gitAsync(this.commitArgs(text(tree.out)), options);
      if (settled || !commit.ok) return;
      const sha = text(commit.out);
      const updated = await gitAsync(["update-ref", ref, sha], this.refOptions());
      if (!settled && updated.ok) writeFileSync(this.chain, sha);
    })()
      .catch(() => undefined)
      .finally(() => {
        if (settled) return;
        settled = true;
        clean();
      });
    return {
      done,
      settle: () => {
        if (settled) return;
        settled = true;
        // The background write-tree may hold its copy's lock: another copy of the same index.
        try {
          const now = from();
          const tree = gitSync(["write-tree"], { ...options, env: now });
          if (tree.ok) this.keep(text(tree.out), ref, now);
        } catch {
          // Nothing kept: the blobs stay in git's store for its prune period.
        } finally {
          clean();
        }
      },
    };
  }

  private get chain(): string {
    return join(this.dir, "chain");
  }

  /** A commit of `tree` on top of the last one kept. */
  private commitArgs(tree: string): string[] {
    const parent = readOr(this.chain).trim();
    return ["commit-tree", tree, ...(/^[0-9a-f]{40,64}$/.test(parent) ? ["-p", parent] : []), "-m", "omp checkpoint"];
  }

  /** Refs are the user's repository's own. */
  private refOptions() {
    return { cwd: this.repo.root, env: { GIT_DIR: this.repo.gitDir }, timeoutMs: GIT_TIMEOUT_MS };
  }

  /** Paths (relative to the root) that differ between two snapshots, each with its blob in `from` (undefined where it had none). */
  changes(from: string, to: string): { path: string; blob: string | undefined }[] {
    if (from === to) return [];
    const result = this.git(["diff-tree", "-r", "-z", "--no-renames", "--raw", from, to]);
    if (!result.ok) return [];
    const fields = result.out.toString("utf8").split("\0");
    const changes: { path: string; blob: string | undefined }[] = [];
    for (let i = 0; i + 1 < fields.length; i += 2) {
      const [oldMode, , oldSha] = fields[i]!.slice(1).split(" ");
      changes.push({ path: fields[i + 1]!, blob: oldMode === "000000" || oldMode === "160000" ? undefined : oldSha });
    }
    return changes;
  }

  /**
   * The contents of blobs, by sha; one past the limits is left out (not restorable). Loose objects
   * (what the private index's updates write) are read here; git is asked only for the rest.
   */
  contents(blobs: readonly string[]): Map<string, Buffer> {
    const found = new Map<string, Buffer>();
    const rest: string[] = [];
    let total = 0;
    for (const sha of new Set(blobs)) {
      const blob = looseBlob(this.objectsDir, sha, MAX_FILE_BYTES);
      if (blob === undefined) rest.push(sha);
      else if (blob !== "too-big" && total + blob.length <= MAX_BYTES) {
        total += blob.length;
        found.set(sha, blob);
      }
    }
    for (const [sha, content] of this.objects(rest, MAX_BYTES - total)) if (content !== "missing") found.set(sha, content);
    return found;
  }

  /** Which of `paths` the repository's ignore rules leave out; undefined when git could not say. */
  ignored(paths: readonly string[]): Set<string> | undefined {
    if (paths.length === 0) return new Set();
    return this.guarded(() => {
      // Exit 1: none of them is ignored.
      const result = this.git(["check-ignore", "-z", "--stdin"], paths.map((path) => `${path}\0`).join(""));
      if (!result.ok && result.code !== 1) return undefined;
      return new Set(result.out.toString("utf8").split("\0").filter(Boolean));
    });
  }

  /**
   * The blobs `names` name (one object name a line), within the limits a snapshot keeps: sizes are
   * asked first (`--batch-check`), and only blobs up to MAX_FILE_BYTES each and MAX_BYTES in all
   * are read, in one call; an earlier command's huge file, deleted now, is never loaded whole.
   */
  private objects(names: readonly string[], budget = MAX_BYTES): Map<string, Buffer | "missing"> {
    const found = new Map<string, Buffer | "missing">();
    if (names.length === 0) return found;
    const check = this.git(["cat-file", "--batch-check"], names.map((name) => `${name}\n`).join(""));
    if (!check.ok) return found;
    const lines = check.out.toString("utf8").split("\n");
    const wanted: { name: string; size: number }[] = [];
    let total = 0;
    names.forEach((name, i) => {
      const line = lines[i] ?? "";
      if (line.endsWith(" missing")) return void found.set(name, "missing");
      const [, type, size] = line.split(" ");
      const length = Number(size);
      if (type !== "blob" || !(length <= MAX_FILE_BYTES) || total + length > budget) return;
      total += length;
      wanted.push({ name, size: length });
    });
    if (wanted.length === 0) return found;
    const read = this.git(["cat-file", "--batch"], wanted.map(({ name }) => `${name}\n`).join(""));
    if (!read.ok) return found;
    let at = 0;
    for (const { name, size } of wanted) {
      const newline = read.out.indexOf(10, at);
      if (newline < 0) break;
      at = newline + 1;
      found.set(name, Buffer.from(read.out.subarray(at, at + size)));
      at += size + 1;
    }
    return found;
  }
}

/** Paths for `update-index -z --stdin`; a nested repository, listed as `dir/`, goes in as `dir` (its commit). */
const stdinPaths = (paths: readonly string[]) => paths.map((path) => `${path.replace(/\/+$/, "")}\0`).join("");

function readOr(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
}

/** Removes a session's snapshot ref (its commits go with git's next gc); nothing outside a repository. */
export function dropSnapshots(cwd: string, sessionId: string): void {
  const repo = findRepo(cwd);
  if (repo) gitSync(["update-ref", "-d", snapshotRef(sessionId)], { cwd: repo.root, env: { GIT_DIR: repo.gitDir }, timeoutMs: GIT_TIMEOUT_MS });
}
