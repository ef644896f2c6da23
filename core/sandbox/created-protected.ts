import { lstatSync, mkdirSync, renameSync } from "node:fs";
import { basename, join } from "node:path";
import { expandPatterns, type SandboxPolicy } from "./policy.ts";

/**
 * The launcher binds the protected paths that exist read-only; one that does not exist yet (a new
 * `.envrc`, `.vscode/`, `.mcp.json`, `.env`) could still be made by a command, and would run code
 * later: direnv in the user's shell, an editor's tasks, the next session. The bash tool notes which
 * exist before a command and moves the ones it made into the session's artifacts, so nothing the
 * sandbox made runs outside it unless the user puts it back. The git files git writes itself
 * (config, hooks, info/attributes of a `git init` or a submodule's clone) are left alone; `commondir` and `config.worktree`,
 * which git never makes in a plain repository and which would send git elsewhere, are not.
 */
export function protectedPresent(policy: SandboxPolicy): Set<string> {
  return new Set(candidates(policy).filter(exists));
}

export interface Quarantined {
  path: string;
  /** Where it is now; undefined when it could not be moved (another file system): then it is only reported. */
  movedTo?: string;
}

/** The protected paths present now that were not `before`, each moved into `<artifactsDir>/quarantine/`. */
export function quarantineCreated(policy: SandboxPolicy, before: ReadonlySet<string>, artifactsDir: string): Quarantined[] {
  const made = candidates(policy).filter((path) => !before.has(path) && exists(path));
  if (made.length === 0) return [];
  const dir = join(artifactsDir, "quarantine");
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return made.map((path) => {
    const movedTo = join(dir, `${Date.now()}-${basename(path)}`);
    try {
      renameSync(path, movedTo);
      return { path, movedTo };
    } catch {
      return { path };
    }
  });
}

/** What the model and the user are told about them. */
export function quarantineNote(items: readonly Quarantined[]): string {
  const lines = items.map((item) => (item.movedTo ? `${item.path} → ${item.movedTo}` : `${item.path} (could not be moved; it stays, and omp will not run it before the user confirms)`));
  return `[omp sandbox] This command made files that run code later outside the sandbox (protected paths); omp moved them out of the project:\n${lines.join("\n")}\nIf they are wanted, ask the user to put them back, or to run the command outside the sandbox.`;
}

function candidates(policy: SandboxPolicy): string[] {
  return expandPatterns(policy.protected).filter((path) => !/\/\.git(\/modules\/.+)?(\/(config|hooks|info\/attributes))?$/.test(path));
}

/** Without a thrown error for each missing path: most protected paths are missing, before and after every command. */
function exists(path: string): boolean {
  try {
    return lstatSync(path, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return false;
  }
}
