import { readFileSync, realpathSync, statSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";

/**
 * The git repository a folder is in, found the way git finds it (a `.git` folder, or a `.git`
 * file naming the folder of a linked worktree or submodule) but without running git: no process
 * on the hot path, and no repository configuration read to find it.
 */
export interface Repo {
  /** The work tree's top folder, real path. */
  root: string;
  /** This work tree's git folder (its index, HEAD). */
  gitDir: string;
  /** The folder shared by all worktrees (objects, refs, config, info/). */
  commonDir: string;
}

const isDir = (path: string) => statSync(path, { throwIfNoEntry: false })?.isDirectory() === true;
const isFile = (path: string) => statSync(path, { throwIfNoEntry: false })?.isFile() === true;

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

/** A git folder: HEAD, objects and refs as git's own check wants them. */
function isGitDir(dir: string, commonDir: string): boolean {
  return isFile(join(dir, "HEAD")) && isDir(join(commonDir, "objects")) && isDir(join(commonDir, "refs"));
}

function commonDirOf(gitDir: string): string {
  const pointer = readText(join(gitDir, "commondir"))?.trim();
  return pointer ? resolve(gitDir, pointer) : gitDir;
}

export function findRepo(cwd: string): Repo | undefined {
  let dir: string;
  try {
    dir = realpathSync(cwd);
  } catch {
    return undefined;
  }
  for (;;) {
    const dotGit = join(dir, ".git");
    let gitDir: string | undefined;
    if (isDir(dotGit)) gitDir = dotGit;
    else if (isFile(dotGit)) {
      const pointer = /^gitdir:\s*(.+?)\s*$/m.exec(readText(dotGit) ?? "")?.[1];
      if (pointer) gitDir = isAbsolute(pointer) ? pointer : resolve(dir, pointer);
    }
    if (gitDir) {
      const commonDir = commonDirOf(gitDir);
      if (isGitDir(gitDir, commonDir)) return { root: dir, gitDir, commonDir };
    }
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}
