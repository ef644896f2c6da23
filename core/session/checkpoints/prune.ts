import { existsSync, rmSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { idFromFileName } from "../paths.ts";
import { dropSnapshots } from "./git-snapshot.ts";
import { dirNames } from "../../fs/dir-names.ts";

/**
 * A session's checkpoints go with it: a `<session>.checkpoints/` whose session file was deleted
 * is removed, with its git snapshots' ref in `cwd`'s repository. Runs when a session first records
 * a change in this process (a listing of its dir), so deleting a session file is all it takes.
 */

const swept = new Set<string>();

const SUFFIX = ".checkpoints";

export function pruneOrphanCheckpoints(sessionPath: string, cwd: string): void {
  if (swept.has(sessionPath)) return;
  swept.add(sessionPath);
  const dir = dirname(sessionPath);
  for (const name of dirNames(dir)) {
    if (!name.endsWith(SUFFIX)) continue;
    const session = `${name.slice(0, -SUFFIX.length)}.jsonl`;
    if (existsSync(join(dir, session)) || join(dir, session) === sessionPath) continue;
    rmSync(join(dir, name), { recursive: true, force: true });
    const id = idFromFileName(basename(session));
    if (id) dropSnapshots(cwd, id);
  }
}
