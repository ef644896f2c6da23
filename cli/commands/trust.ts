import { resolve } from "node:path";
import { OmpError } from "../../core/errors/omp-error.ts";
import { displayPath, expandHome } from "../../core/paths.ts";
import { isDirectory } from "../../core/tools/paths.ts";
import { folderTrust, forgetFolderTrust, readTrustStore, setFolderTrust, trustStorePath } from "../../core/trust/folder-trust.ts";
import { writeStdout } from "../shared/write.ts";
import { changedParts, pinParts } from "../../core/trust/content-pins.ts";
import { describeChanges } from "../../core/session-host/trust-changes.ts";
import { EXIT_USAGE } from "../../core/errors/exit-codes.ts";

export interface TrustFlags {
  list?: boolean;
  revoke?: boolean;
  /** `--no`: remember the folder as untrusted, so the interactive mode stops asking. */
  deny?: boolean;
  json?: boolean;
}

const folderOf = (dir: string | undefined) => resolve(expandHome(dir ?? process.cwd()));

/** `omp trust [dir]`, `omp trust --list`, `omp trust --revoke [dir]`. */
export async function runTrust(dir: string | undefined, flags: TrustFlags): Promise<number> {
  if ([flags.list, flags.revoke, flags.deny].filter(Boolean).length > 1) {
    throw new OmpError("omp trust: give only one of --list, --revoke and --deny", { exitCode: EXIT_USAGE });
  }
  if (flags.list) {
    if (dir !== undefined) throw new OmpError("omp trust --list takes no directory", { exitCode: EXIT_USAGE });
    const folders = Object.entries(readTrustStore().folders).sort(([a], [b]) => a.localeCompare(b));
    if (flags.json) {
      await writeStdout(`${JSON.stringify(folders.map(([folder, entry]) => ({ folder, ...entry })), null, 2)}\n`);
    } else if (folders.length === 0) {
      await writeStdout(`No folder decisions yet (${displayPath(trustStorePath())}).\n`);
    } else {
      await writeStdout(folders.map(([folder, entry]) => `${entry.trusted ? "trusted  " : "untrusted"}  ${displayPath(folder)}`).join("\n") + "\n");
    }
    return 0;
  }
  const folder = folderOf(dir);
  if (flags.revoke) {
    const had = forgetFolderTrust(folder);
    const now = folderTrust(folder);
    const after = now.trusted ? ` (still trusted: ${now.source === "stored" ? `through ${displayPath(now.folder)}` : "your own folder"})` : "";
    await writeStdout(had ? `Forgot the decision for ${displayPath(folder)}${after}.\n` : `No decision was stored for ${displayPath(folder)}${after}.\n`);
    return 0;
  }
  if (!isDirectory(folder)) throw new OmpError(`omp trust: ${dir ?? folder} is not a directory`, { exitCode: EXIT_USAGE });
  // What changed since it was trusted is shown as it is accepted: the user sees what they trust.
  const changes = flags.deny ? [] : changedParts(folder);
  const stored = setFolderTrust(folder, !flags.deny);
  if (!flags.deny) pinParts(folder);
  const accepted = changes.length > 0 ? `Accepted these changes since you last trusted it:\n\n${describeChanges(changes)}\n` : "";
  await writeStdout(
    flags.deny
      ? `${displayPath(stored)} is untrusted: its project files may give text and harmless settings only, and omp will not ask again.\n`
      : `${accepted}Trusted ${displayPath(stored)} and everything under it: its .env, .omp/config.yml and .omp/models.yml now apply in full; its hooks, MCP and language servers, allow rules, extensions and plugins as they are now (a later change to them asks again).\n`,
  );
  return 0;
}
