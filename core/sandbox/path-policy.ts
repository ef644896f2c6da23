import { lstatSync, readlinkSync, realpathSync, statSync } from "node:fs";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import { projectRoot } from "../fs/project-root.ts";
import { isWithin } from "../fs/within.ts";
import { type SandboxPolicy, protectedPaths } from "./policy.ts";
import { dirNames } from "../fs/dir-names.ts";

/**
 * The sandbox policy as omp's own file tools apply it (read, grep, find, ls, ast_grep, lsp, write,
 * edit and every edit format): the same {@link SandboxPolicy} the launcher confines commands with,
 * so a path the model's `bash` cannot read is not readable through `read` either. Paths are
 * judged where they really lead at the moment of use, as the kernel would resolve them.
 */

export type PathAccess = "read" | "write";

/**
 * `denied`: on the deny-list, never done while the sandbox is on; `needs-approval`: a write outside
 * the writable roots, or to a protected path of the workspace (files that make something run later).
 */
export type PathVerdict =
  | { kind: "allowed"; real: string }
  | { kind: "denied"; real: string; message: string }
  | { kind: "needs-approval"; real: string; why: "outside" | "protected"; message: string; howToAllow: string };


/** Files of any process that hold secrets: its environment, command line (an `--api-key`) and memory. */
const PROCESS_SECRETS = /^\/proc\/(?:\d+|self|thread-self)(?:\/task\/\d+)?\/(?:environ|cmdline|mem)$/;

/** How many files of the deny-list's trees are looked at to know their inodes (hard links to them). */
const MAX_INDEXED = 20_000;
/** How long the inode index is taken as current before the deny-list's dirs are looked at again. */
const INDEX_CHECK_MS = 1000;

export interface PathPolicyOptions {
  /** The entries of `denyRead` the user added (`sandbox.denyRead`), named as such in refusals. */
  userDenyRead?: readonly string[];
  /** More trees omp's tools may write without asking (the session's artifacts). */
  writable?: readonly string[];
}

interface DenyEntry {
  /** As the policy names it (`~/.ssh`, `…/agent.db*`). */
  given: string;
  /** Where it really is; for a `*` entry, its real directory plus the name prefix. */
  real: string;
  prefix: boolean;
  fromSettings: boolean;
}

export class PathPolicy {
  readonly mode: SandboxPolicy["mode"];
  /** Where protected paths are looked for: the project and the `--add-dir` dirs. */
  readonly workspaces: string[];
  private readonly deny: DenyEntry[];
  private readonly writable: string[];
  private readonly home: string;
  /** The protected paths of every workspace (PROTECTED_WORKSPACE_PATHS, as the launcher binds them); a trailing `*` is a name prefix. */
  private readonly guarded: string[];
  private readonly watched: string[];
  private inodeIndex: { key: string; map: Map<string, DenyEntry>; checkedAt: number } | undefined;

  /**
   * The same policy for an agent working in `dir` as well (an isolated task's worktree): a
   * workspace of its own, writable, its protected paths guarded as the project's are.
   */
  withWorkspace(dir: string): PathPolicy {
    const real = realPath(dir);
    const copy = Object.create(PathPolicy.prototype) as PathPolicy;
    return Object.assign(copy, this, { writable: [...this.writable, real], workspaces: [...this.workspaces, real], guarded: [...this.guarded, ...guardedPaths(real)] });
  }

  constructor(
    policy: SandboxPolicy,
    cwd: string,
    addDirs: readonly string[] = [],
    options: PathPolicyOptions = {},
  ) {
    this.mode = policy.mode;
    this.home = realPath(policy.home);
    const user = new Set(options.userDenyRead ?? []);
    this.deny = policy.denyRead.map((given) => {
      const prefix = given.endsWith("*");
      const real = prefix ? join(realPath(dirname(given)), basename(given).slice(0, -1)) : realPath(given);
      return { given, real, prefix, fromSettings: user.has(given) };
    });
    // A new file in a denied dir changes its mtime; a denied dir made later changes its parent's.
    this.watched = [...new Set(this.deny.map((entry) => nearestExisting(entry.prefix ? dirname(entry.real) : entry.real)))];
    this.writable = [...new Set([...policy.writable, ...(options.writable ?? [])].map(realPath))];
    const project = projectRoot(cwd);
    this.workspaces = [...new Set([project, ...addDirs].map(realPath))];
    this.guarded = [...new Set(this.workspaces.flatMap(guardedPaths))];
  }

  /** What `access` to `path` (absolute) may do now, judged where it leads at this moment. */
  check(path: string, access: PathAccess): PathVerdict {
    const lexical = resolve(path);
    const real = realPath(lexical);
    if (this.mode === "off") return { kind: "allowed", real };
    const denied = this.deniedEntry(lexical) ?? this.deniedEntry(real) ?? this.hardLinked(real);
    if (denied !== undefined) return { kind: "denied", real, message: denialMessage(path, denied) };
    if (PROCESS_SECRETS.test(real) || PROCESS_SECRETS.test(lexical)) {
      return { kind: "denied", real, message: `${path} is refused: a process's environment, command line and memory hold API keys, so omp's tools do not read them while the sandbox is on. The user can open this on purpose with --sandbox off.` };
    }
    if (access === "read") return { kind: "allowed", real };
    if (!this.isWritable(real)) {
      return {
        kind: "needs-approval",
        real,
        why: "outside",
        message: `writing ${real} needs the user's approval: it is outside the sandbox's writable roots (${this.mode === "read-only" ? "none: the sandbox is read-only" : "the project, --add-dir dirs, sandbox.writable, temp dirs and tool caches"})`,
        howToAllow: `To allow writes there, rerun with --add-dir ${dirname(real)}, add it to sandbox.writable, or use --sandbox off.`,
      };
    }
    const guarded = this.protectedName(real);
    if (guarded !== undefined) {
      return {
        kind: "needs-approval",
        real,
        why: "protected",
        message: `writing ${real} needs the user's approval: ${guarded} is a protected path of the workspace (it makes something run later: git config and hooks, omp's and Claude Code's settings, editor tasks, direnv and .env files)`,
        howToAllow: "The user can approve it in an interactive session, or rerun with --sandbox off.",
      };
    }
    return { kind: "allowed", real };
  }

  /**
   * The deny-list's paths inside `root` (a directory about to be walked), relative to its real
   * path, for a walk to prune; a `*` entry keeps its `*`. Empty with the sandbox off.
   */
  deniedBelow(root: string): string[] {
    if (this.mode === "off") return [];
    const real = realPath(resolve(root));
    const below: string[] = [];
    for (const entry of this.deny) {
      const rel = relative(real, entry.real);
      if (rel === "" || rel.startsWith("..") || rel.startsWith(sep)) continue;
      below.push(entry.prefix ? `${rel}*` : rel);
    }
    return below;
  }

  private deniedEntry(path: string): DenyEntry | undefined {
    return this.deny.find((entry) => {
      if (!entry.prefix) return within(path, entry.real);
      const dir = dirname(entry.real);
      if (!within(path, dir) || path === dir) return false;
      return path.slice(dir.length + 1).split(sep)[0]!.startsWith(basename(entry.real));
    });
  }

  /** A second name of a denied file (`ln ~/.ssh/id_rsa k`): the same inode as one in the deny-list's trees. */
  private hardLinked(real: string): DenyEntry | undefined {
    let stat;
    try {
      stat = statSync(real);
    } catch {
      return undefined;
    }
    if (!stat.isFile() || stat.nlink < 2) return undefined;
    return this.deniedInodes().get(`${stat.dev}:${stat.ino}`);
  }

  /**
   * The inodes of the deny-list's files, refreshed when one of its dirs changes (looked at no more
   * than every INDEX_CHECK_MS: a package store hard-links every file, and a grep checks a hundred).
   */
  private deniedInodes(): Map<string, DenyEntry> {
    const now = performance.now();
    if (this.inodeIndex && now - this.inodeIndex.checkedAt < INDEX_CHECK_MS) return this.inodeIndex.map;
    const key = this.watched.map(mtimeOf).join(",");
    if (this.inodeIndex?.key === key) {
      this.inodeIndex.checkedAt = now;
      return this.inodeIndex.map;
    }
    const map = new Map<string, DenyEntry>();
    let budget = MAX_INDEXED;
    const visit = (path: string, entry: DenyEntry, depth: number) => {
      if (budget-- <= 0 || depth > 8) return;
      let stat;
      try {
        stat = lstatSync(path);
      } catch {
        return;
      }
      if (stat.isFile()) map.set(`${stat.dev}:${stat.ino}`, entry);
      else if (stat.isDirectory()) {
        for (const name of dirNames(path)) visit(join(path, name), entry, depth + 1);
      }
    };
    for (const entry of this.deny) {
      if (!entry.prefix) visit(entry.real, entry, 0);
      else {
        const dir = dirname(entry.real);
        for (const name of dirNames(dir)) if (name.startsWith(basename(entry.real))) visit(join(dir, name), entry, 1);
      }
    }
    this.inodeIndex = { key, map, checkedAt: now };
    return map;
  }

  /** As the launcher binds them: a home inside a writable tree (/tmp) stays read-only but for the writable trees inside it. */
  private isWritable(real: string): boolean {
    const inHome = within(real, this.home);
    return this.writable.some((root) => within(real, root) && (!inHome || within(root, this.home)));
  }

  /** The protected path `real` is or lies in, as the workspace names it. */
  private protectedName(real: string): string | undefined {
    for (const entry of this.guarded) {
      const hit = entry.endsWith("*") ? dirname(real) === dirname(entry) && basename(real).startsWith(basename(entry).slice(0, -1)) : within(real, entry);
      if (!hit) continue;
      const root = this.workspaces.find((workspace) => within(entry, workspace));
      return root ? relative(root, entry) : entry;
    }
    // `.env` files of sub-folders too: what a tool writes there is read by the same loaders.
    const name = basename(real);
    return name === ".envrc" || name.startsWith(".env") ? name : undefined;
  }
}

function denialMessage(path: string, entry: DenyEntry): string {
  const opens = entry.fromSettings
    ? `it is listed in sandbox.denyRead; the user can remove it there, or use --sandbox off`
    : "it holds credentials (the sandbox's built-in deny-list); the user can open it on purpose only with --sandbox off";
  return `${path} is refused: ${entry.given} is on the sandbox's deny-list, so neither commands nor omp's tools read or write it (${opens}).`;
}

/** `path` is `root` or lies inside it (both absolute and resolved). */
export const within = isWithin;

/** A workspace's protected paths as the launcher names them (core/sandbox/policy.ts), resolved where they exist. */
function guardedPaths(root: string): string[] {
  return protectedPaths(root).map((path) => (path.endsWith("*") ? join(realPath(dirname(path)), basename(path)) : realPath(path)));
}

function nearestExisting(path: string): string {
  for (let current = path; ; current = dirname(current)) {
    try {
      statSync(current);
      return current;
    } catch {
      if (dirname(current) === current) return current;
    }
  }
}

function mtimeOf(path: string): string {
  try {
    return String(statSync(path).mtimeMs);
  } catch {
    return "-";
  }
}

/**
 * Where `path` really leads, as the kernel resolves it at open time: its nearest existing ancestor
 * through every symlink (`/proc/self/root` and `/proc/<pid>/fd/<n>` included), plus the rest. A
 * dangling symlink is followed too, since writing through it creates its target.
 */
export function realPath(path: string, depth = 0): string {
  const rest: string[] = [];
  for (let current = resolve(path); ; current = dirname(current)) {
    try {
      return join(realpathSync(current), ...rest.reverse());
    } catch {
      const target = depth < 40 ? danglingTarget(current) : undefined;
      if (target !== undefined) return join(realPath(target, depth + 1), ...rest.reverse());
      if (dirname(current) === current) return resolve(path);
      rest.push(basename(current));
    }
  }
}

function danglingTarget(path: string): string | undefined {
  try {
    return lstatSync(path).isSymbolicLink() ? resolve(dirname(path), readlinkSync(path)) : undefined;
  } catch {
    return undefined;
  }
}
