import { copyFileSync, existsSync, lstatSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type GitResult, gitSync } from "../../git/run.ts";
import { findRepo, type Repo } from "../../git/repo.ts";
import { sha256 } from "./store.ts";

/**
 * Snapshots of a git work tree for what commands change, as git trees in the repository's own
 * object store, made through a private git folder kept with the session's checkpoints:
 *
 * - its own index, refreshed from stat data on each capture, so only files that changed are read
 *   (the first one starts from a copy of the user's index); the user's index, HEAD, branches and
 *   work tree are never touched;
 * - its own configuration and attributes, so nothing the model wrote into the repository's
 *   `.git/config`, `.git/info/attributes` or `.gitattributes` runs (fsmonitor, hooks, filters) or
 *   changes the bytes stored (eol and encoding conversions): a snapshot holds the files as they are.
 *
 * A turn's first snapshot is also kept as a commit under refs/omp/checkpoints/<session>, outside
 * refs/heads; the others live as loose objects only until their changes are in the blob store.
 */

/** Longest one git step may take: a work tree too big for that is not snapshotted again this process (see {@link Snapshots.capture}). */
const GIT_TIMEOUT_MS = 5_000;
/** Work trees whose snapshot failed or took too long: every command would pay for it again. */
const givenUp = new Set<string>();
/** An identity even where none is configured. */
const IDENTITY = { GIT_AUTHOR_NAME: "omp", GIT_AUTHOR_EMAIL: "omp@localhost", GIT_COMMITTER_NAME: "omp", GIT_COMMITTER_EMAIL: "omp@localhost" };
/** Every path stored as it is on disk, whatever the repository's attributes say (this file outranks them). */
const ATTRIBUTES = "* -text -eol -crlf -filter -ident -working-tree-encoding\n";

const text = (out: Buffer) => out.toString("utf8").trim();

/** Files a snapshot would copy into git's object store: past these, the command is left unsnapshotted (not restorable) rather than the disk filled. */
const MAX_UNTRACKED_FILE_BYTES = 50 * 1024 * 1024;
const MAX_UNTRACKED_BYTES = 200 * 1024 * 1024;

/** The ref a session's snapshots hang from. */
export const snapshotRef = (sessionId: string) => `refs/omp/checkpoints/${sessionId.replace(/[^A-Za-z0-9._-]/g, "_")}`;

/** One work tree's snapshots for one session: `checkpointDir` is where the session keeps its checkpoints. */
export class Snapshots {
  /** The private git folder. */
  readonly dir: string;
  private readonly env: Record<string, string>;

  constructor(
    readonly repo: Repo,
    checkpointDir: string,
  ) {
    this.dir = join(checkpointDir, `git-${sha256(Buffer.from(repo.root)).slice(0, 12)}`);
    this.env = { GIT_DIR: this.dir, GIT_WORK_TREE: repo.root, GIT_OBJECT_DIRECTORY: join(repo.commonDir, "objects"), GIT_INDEX_FILE: join(this.dir, "index"), ...IDENTITY };
  }

  private git(args: string[], input?: string): GitResult {
    return gitSync(args, { cwd: this.repo.root, env: this.env, timeoutMs: GIT_TIMEOUT_MS, ...(input === undefined ? {} : { input }) });
  }

  /** The private folder, made on first use; the user's ignore list copied in when it changed. */
  private prepare(): void {
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

  /**
   * The work tree now (tracked and untracked files, ignored ones left out) as a tree; undefined if
   * git failed or the files to add are over the limits. A dry run first: when it finds nothing
   * to add, the tree is the one the private index was last written as, and that is all it costs.
   */
  capture(): string | undefined {
    if (givenUp.has(this.repo.root)) return undefined;
    try {
      this.prepare();
      let pending = this.git(["add", "-A", "-v", "--dry-run", "--", "."]);
      if (!pending.ok) {
        // An index git cannot use here (a split index copied from the user's): start a fresh one.
        rmSync(join(this.dir, "index"), { force: true });
        indexTrees.delete(this.dir);
        pending = this.git(["add", "-A", "-v", "--dry-run", "--", "."]);
        if (!pending.ok) return this.giveUp();
      }
      const known = indexTrees.get(this.dir);
      if (pending.out.length === 0 && known) return known;
      if (!this.withinLimits(pending.out.toString("utf8"))) return undefined;
      if (pending.out.length > 0 && !this.git(["add", "-A", "--", "."]).ok) return this.giveUp();
      const tree = this.git(["write-tree"]);
      if (!tree.ok) return this.giveUp();
      indexTrees.set(this.dir, text(tree.out));
      return text(tree.out);
    } catch {
      // A snapshot that cannot be made (a read-only .git, a full disk) costs the rewind of this command, never the command.
      return this.giveUp();
    }
  }

  private giveUp(): undefined {
    givenUp.add(this.repo.root);
    return undefined;
  }

  /**
   * Whether the files a capture would add stay within what a snapshot may store. The dry run's
   * lines (`add 'path'`) are not quoted: if one does not read back as a file (a name with a line
   * break), the untracked files are listed the safe way instead.
   */
  private withinLimits(dryRun: string): boolean {
    const sizes: number[] = [];
    for (const line of dryRun.split("\n")) {
      if (line === "" || line.startsWith("remove '")) continue;
      const path = /^add '(.*)'$/.exec(line)?.[1];
      const stat = path === undefined ? undefined : lstatSync(join(this.repo.root, path), { throwIfNoEntry: false });
      if (!stat) return this.untrackedWithinLimits();
      sizes.push(stat.size);
    }
    return sizesWithinLimits(sizes);
  }

  /** Whether the work tree's untracked, unignored files stay within what a snapshot may store. */
  private untrackedWithinLimits(): boolean {
    const listed = this.git(["ls-files", "-z", "--others", "--exclude-standard"]);
    if (!listed.ok) return false;
    const paths = listed.out.toString("utf8").split("\0").filter(Boolean);
    return sizesWithinLimits(paths.map((path) => lstatSync(join(this.repo.root, path), { throwIfNoEntry: false })?.size ?? 0));
  }

  /** `tree` as the newest commit under `ref` in the user's repository (so `git gc` keeps it). */
  keep(tree: string, ref: string): void {
    const chain = join(this.dir, "chain");
    const parent = readOr(chain).trim();
    const commit = this.git(["commit-tree", tree, ...(/^[0-9a-f]{40,64}$/.test(parent) ? ["-p", parent] : []), "-m", "omp checkpoint"]);
    if (!commit.ok) return;
    const sha = text(commit.out);
    if (gitSync(["update-ref", ref, sha], { cwd: this.repo.root, env: { GIT_DIR: this.repo.gitDir }, timeoutMs: GIT_TIMEOUT_MS }).ok) writeFileSync(chain, sha);
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

  /** The contents of blobs, by sha, in one git call. */
  contents(blobs: readonly string[]): Map<string, Buffer> {
    const found = new Map<string, Buffer>();
    if (blobs.length === 0) return found;
    const result = this.git(["cat-file", "--batch"], [...new Set(blobs)].map((sha) => `${sha}\n`).join(""));
    if (!result.ok) return found;
    const out = result.out;
    let at = 0;
    while (at < out.length) {
      const newline = out.indexOf(10, at);
      if (newline < 0) break;
      const [sha, type, size] = out.subarray(at, newline).toString("utf8").split(" ");
      at = newline + 1;
      if (type === "missing" || size === undefined) continue;
      const length = Number(size);
      if (type === "blob") found.set(sha!, Buffer.from(out.subarray(at, at + length)));
      at += length + 1;
    }
    return found;
  }
}

/** The tree each private index was last written as (this process), so an unchanged work tree costs one git call. */
const indexTrees = new Map<string, string>();

function sizesWithinLimits(sizes: readonly number[]): boolean {
  let total = 0;
  for (const size of sizes) {
    total += size;
    if (size > MAX_UNTRACKED_FILE_BYTES || total > MAX_UNTRACKED_BYTES) return false;
  }
  return true;
}

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
