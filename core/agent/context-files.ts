import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

export interface ContextFile {
  path: string;
  content: string;
}

const NAMES = ["AGENTS.md", "CLAUDE.md"];
const MAX_BYTES = 64 * 1024;

/** The nearest ancestor of `cwd` holding `.git`, or null outside a repository. */
export function repositoryRoot(cwd: string): string | null {
  let dir = resolve(cwd);
  for (;;) {
    if (existsSync(join(dir, ".git"))) return dir;
    const parent = dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

function readSmall(path: string): string | null {
  try {
    const text = readFileSync(path, "utf8");
    return text.length > MAX_BYTES ? `${text.slice(0, MAX_BYTES)}\n[cut at ${MAX_BYTES} bytes]` : text;
  } catch {
    return null;
  }
}

/**
 * Instructions the user keeps for agents: `<agent dir>/AGENTS.md`, then AGENTS.md and CLAUDE.md in
 * every directory from the repository root (or cwd outside a repository) down to cwd, so the most
 * specific file comes last and wins on conflict. Byte-identical files are read once.
 */
export function findContextFiles(cwd: string, agentDir: string): ContextFile[] {
  const files: ContextFile[] = [];
  const seen = new Set<string>();
  const add = (path: string) => {
    const content = readSmall(path);
    if (content === null || content.trim() === "" || seen.has(content)) return;
    seen.add(content);
    files.push({ path, content });
  };
  add(join(agentDir, "AGENTS.md"));
  const top = repositoryRoot(cwd) ?? resolve(cwd);
  const dirs: string[] = [];
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    dirs.unshift(dir);
    if (dir === top || dirname(dir) === dir) break;
  }
  for (const dir of dirs) for (const name of NAMES) add(join(dir, name));
  return files;
}
