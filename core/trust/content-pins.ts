import { displayPath } from "../paths.ts";
import { unifiedDiff } from "../tools/diff.ts";
import { statSync } from "node:fs";
import { realFolder } from "../fs/real-folder.ts";
import { type FolderTrust, type Pin, type TrustStore, folderTrust, readTrustStore, trustStorePath, updateTrustStore } from "./folder-trust.ts";
import { type PartContent, partContent, projectParts } from "./pinned-parts.ts";

/**
 * Trust pinned to content: when the user trusts a folder, what each of its code-running parts
 * says (pinned-parts.ts) is recorded. A part that changed since — a `git pull`, or a file the
 * model wrote in a session — does not run until the user accepts the change, shown as a diff
 * (the interactive mode asks; rpc asks its host; print mode skips it and says `omp trust`).
 * Pins belong to the trust decision (the folder trusted, shared by every folder under it), per
 * part by absolute path, a part that did not exist pinned as absent: a file the model adds later
 * is a change too. A part never seen (a folder trusted before pins, a subfolder first opened
 * under a trusted parent) is pinned as it is at its first session.
 */

export interface PartChange {
  /** The part's absolute path. */
  file: string;
  /** Unified diff of what trust covers, from the trusted text to the current one. */
  diff: string;
}

const changedSkipped = new Set<string>();

/** A part that did not exist when pinned. */
const ABSENT: Pin = { sha256: "" };

/** Unchanged: removed since (it runs nothing), never seen (pinned at the session's start), or the same content. */
const same = (pin: Pin | undefined, now: PartContent | undefined) => now === undefined || pin === undefined || pin.sha256 === now.sha256;

let read: { stamp: string; pins: NonNullable<TrustStore["pins"]> } | undefined;

/** The store's pins, parsed once while the file is unchanged: every loader asks at start-up, and pins hold texts. */
function storedPins(env: NodeJS.ProcessEnv): NonNullable<TrustStore["pins"]> {
  let stamp = "";
  try {
    const stat = statSync(trustStorePath(env));
    stamp = `${trustStorePath(env)}:${stat.mtimeMs}:${stat.size}:${stat.ino}`;
  } catch {
    return {};
  }
  if (read?.stamp !== stamp) read = { stamp, pins: readTrustStore(env).pins ?? {} };
  return read.pins;
}

/** A folder trusted by a stored decision: its decision's pins (empty when none yet); otherwise undefined (nothing to compare). */
function pinsOf(trust: FolderTrust, env: NodeJS.ProcessEnv): Record<string, Pin> | undefined {
  if (!trust.trusted || trust.source !== "stored") return undefined;
  return storedPins(env)[trust.folder] ?? {};
}

/**
 * Whether `part` of `cwd`'s project may run: the folder is trusted and the part says what it said
 * when it was (a part removed since runs nothing either way). A changed part is noted for changedNotice.
 */
export function partTrusted(cwd: string, part: string, env: NodeJS.ProcessEnv = process.env): boolean {
  return folderTrust(cwd, { env }).trusted && !partChanged(cwd, part, env);
}

/** Whether `part` changed since the folder was trusted by a stored decision (noted for changedNotice). */
export function partChanged(cwd: string, part: string, env: NodeJS.ProcessEnv = process.env): boolean {
  const pins = pinsOf(folderTrust(cwd, { env }), env);
  if (!pins || same(pins[part], partContent(part, pins[part]))) return false;
  changedSkipped.add(part);
  return true;
}

/** The parts of `cwd`'s project that changed since the folder was trusted, each with its diff. */
export function changedParts(cwd: string, env: NodeJS.ProcessEnv = process.env): PartChange[] {
  const pins = pinsOf(folderTrust(cwd, { env }), env);
  if (!pins) return [];
  const changes: PartChange[] = [];
  for (const file of projectParts(cwd)) {
    const pin = pins[file];
    const now = partContent(file, pin);
    if (same(pin, now)) continue;
    const shown = displayPath(file);
    const diff =
      pin!.sha256 !== "" && pin!.text === undefined
        ? `${shown}: changed (too big to show: over the text kept for a diff)\n`
        : now!.text === undefined
          ? `${shown}: changed (too big to show)\n`
          : unifiedDiff(pin!.text ?? "", now!.text, shown).text;
    changes.push({ file, diff });
  }
  return changes;
}

/**
 * Records what `cwd`'s parts hold now (absent ones as absent) as what the user trusts: `omp trust`,
 * an accepted change; `onlyUnseen`: only parts never pinned (ensurePinned).
 */
export function pinParts(cwd: string, env: NodeJS.ProcessEnv = process.env, onlyUnseen = false, only?: readonly string[]): void {
  const trust = folderTrust(cwd, { env });
  if (!trust.trusted || trust.source !== "stored") return;
  updateTrustStore(env, (store) => {
    const pins = { ...store.pins?.[trust.folder] };
    for (const file of projectParts(cwd)) {
      if ((onlyUnseen && pins[file]) || (only && !only.includes(file))) continue;
      pins[file] = partContent(file) ?? ABSENT;
      changedSkipped.delete(file);
    }
    store.pins = { ...store.pins, [trust.folder]: pins };
  });
}

/**
 * The user's own change through omp (`omp mcp add -s project`, `omp config set --project`): a part
 * that was as trusted stays trusted with what they wrote; one that had changed already still waits.
 */
export function ownWrite<T>(cwd: string, part: string, write: () => T, env: NodeJS.ProcessEnv = process.env): T {
  const asTrusted = pinsOf(folderTrust(cwd, { env }), env) !== undefined && !partChanged(cwd, part, env);
  const result = write();
  if (asTrusted) pinParts(cwd, env, false, [part]);
  return result;
}

/** Parts never seen (a folder trusted before pins, a subfolder first opened under a trusted parent): pinned as they are. */
export function ensurePinned(cwd: string, env: NodeJS.ProcessEnv = process.env): void {
  const trust = folderTrust(cwd, { env });
  const pins = pinsOf(trust, env);
  if (pins && projectParts(cwd).some((file) => !pins[file])) pinParts(cwd, env, true);
}

/** The one line saying which parts were skipped because they changed since the folder was trusted, or undefined. */
export function changedNotice(cwd: string): string | undefined {
  if (changedSkipped.size === 0) return undefined;
  const shown = displayPath(realFolder(cwd));
  return `omp: ${[...changedSkipped].map((file) => displayPath(file)).join(", ")} changed since you trusted ${shown}, so the hooks, servers, allow rules and extensions there were skipped. Review the change and accept it with \`omp trust ${shown}\`.`;
}
