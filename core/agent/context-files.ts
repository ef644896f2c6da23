import { projectRoot } from "../fs/project-root.ts";
import { readFileSync, readdirSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

export interface ContextFile {
  path: string;
  content: string;
}

/** What the user and the project give the system prompt, all of it text (no trust needed). */
export interface PromptFiles {
  /** Context files, user-level first, then the project's from the farthest directory to the nearest. */
  context: ContextFile[];
  /** RULES.md: short requirements that always apply (user, then the nearest project one). */
  rules: ContextFile[];
  /** SYSTEM.md: replaces the built-in instructions (project `.omp`/`.claude`, else the user's). */
  system?: ContextFile;
  /** APPEND_SYSTEM.md: added after them, found the same way. */
  appendSystem?: ContextFile;
}

const MAX_BYTES = 64 * 1024;

function readSmall(path: string): string | null {
  try {
    const text = readFileSync(path, "utf8");
    return text.length > MAX_BYTES ? `${text.slice(0, MAX_BYTES)}\n[cut at ${MAX_BYTES} bytes]` : text;
  } catch {
    return null;
  }
}

function read(path: string): ContextFile | undefined {
  const content = readSmall(path);
  return content === null || content.trim() === "" ? undefined : { path, content };
}

/** cwd and its ancestors up to the repository root (or cwd alone outside one), nearest first. */
function walkUp(cwd: string): string[] {
  const top = projectRoot(cwd);
  const dirs: string[] = [];
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    dirs.push(dir);
    if (dir === top || dirname(dir) === dir) break;
  }
  return dirs;
}

/** `.omp/<name>` in the nearest directory whose `.omp/` is non-empty, as the original walks up. */
function nearestNative(dirs: string[], name: string): ContextFile | undefined {
  for (const dir of dirs) {
    const base = join(dir, ".omp");
    let entries: string[];
    try {
      if (!statSync(base).isDirectory()) continue;
      entries = readdirSync(base);
    } catch {
      continue;
    }
    if (entries.length === 0) continue;
    const file = read(join(base, name));
    if (file) return file;
  }
  return undefined;
}

/**
 * Instructions the user keeps for agents, read the way the original omp reads them:
 * - user: `<agent dir>/AGENTS.md`, else `~/.claude/CLAUDE.md`; `<agent dir>/RULES.md`;
 * - project: the nearest `.omp/AGENTS.md` and `.omp/RULES.md` walking up to the repository root,
 *   `<cwd>/.claude/CLAUDE.md`, and AGENTS.md / CLAUDE.md in every directory from the root down;
 * - `SYSTEM.md` / `APPEND_SYSTEM.md` from `<cwd>/.omp`, `<cwd>/.claude`, then the agent dir.
 * Farther files come first so the most specific one is last and wins on conflict; byte-identical
 * files are read once.
 */
export function findPromptFiles(cwd: string, agentDir: string, home: string): PromptFiles {
  const context: ContextFile[] = [];
  const seen = new Set<string>();
  const add = (file: ContextFile | undefined) => {
    if (!file || seen.has(file.content)) return;
    seen.add(file.content);
    context.push(file);
  };
  add(read(join(agentDir, "AGENTS.md")) ?? read(join(home, ".claude", "CLAUDE.md")));
  const dirs = walkUp(cwd);
  for (const dir of [...dirs].reverse()) for (const name of ["AGENTS.md", "CLAUDE.md"]) add(read(join(dir, name)));
  add(read(join(resolve(cwd), ".claude", "CLAUDE.md")));
  add(nearestNative(dirs, "AGENTS.md"));

  const rules = [read(join(agentDir, "RULES.md")), nearestNative(dirs, "RULES.md")].filter((file): file is ContextFile => file !== undefined);
  const configFile = (name: string) =>
    read(join(resolve(cwd), ".omp", name)) ?? read(join(resolve(cwd), ".claude", name)) ?? read(join(agentDir, name));
  const system = configFile("SYSTEM.md");
  const appendSystem = configFile("APPEND_SYSTEM.md");
  return { context, rules, ...(system ? { system } : {}), ...(appendSystem ? { appendSystem } : {}) };
}

/** `--system-prompt` / `--append-system-prompt`: the file's text when the argument names a file, else the argument itself. */
export function promptArgument(arg: string, cwd: string): string {
  const path = resolve(cwd, arg);
  try {
    if (arg.length < 4096 && !arg.includes("\n") && statSync(path).isFile()) return readFileSync(path, "utf8");
  } catch {
    // Not a file: the text itself.
  }
  return arg;
}
