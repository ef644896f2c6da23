import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { tempDir } from "./temp.ts";

/**
 * A git repository in a new temp folder holding `files`, committed, with no user or system
 * configuration; `git(...args)` runs git there and answers its trimmed output (throws when git fails).
 */
export function committedRepo(prefix: string, files: Record<string, string>): { root: string; git: (...args: string[]) => string } {
  const root = tempDir(prefix);
  const git = (...args: string[]) => {
    const run = Bun.spawnSync(["git", ...args], { cwd: root, env: { PATH: process.env.PATH, HOME: root, GIT_CONFIG_NOSYSTEM: "1", GIT_AUTHOR_NAME: "a", GIT_AUTHOR_EMAIL: "a@b", GIT_COMMITTER_NAME: "a", GIT_COMMITTER_EMAIL: "a@b" } });
    if (run.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${run.stderr}`);
    return run.stdout.toString().trim();
  };
  git("init", "-q");
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, name)), { recursive: true });
    writeFileSync(join(root, name), content);
  }
  git("add", "-A");
  git("commit", "-q", "-m", "start");
  return { root, git };
}
