import type { FileChange, TextOp } from "./changes.ts";

/**
 * The Codex patch envelope GPT models are trained on:
 *
 *   *** Begin Patch
 *   *** Update File: src/a.ts
 *   *** Move to: src/b.ts          (optional)
 *   @@ function anchor              (optional; searched for first)
 *    context line
 *   -removed line
 *   +added line
 *   *** End of File                 (optional: the hunk ends the file)
 *   *** Add File: NEW.md            (every line +)
 *   *** Delete File: OLD.md
 *   *** End Patch
 *
 * Accepted loosely where that is unambiguous: a missing envelope, a ```fence or `apply_patch <<'EOF'`
 * around it, context lines that lost their leading space.
 */

export class PatchSyntaxError extends Error {}

const FILE_HEADER = /^\*\*\* (Add|Update|Delete) File:\s*(.+?)\s*$/;

/** The envelope's lines with shell heredoc, code fences and Begin/End markers taken off. */
function bodyLines(input: string): string[] {
  let lines = input.replaceAll("\r\n", "\n").split("\n");
  const strip = (test: (line: string) => boolean, fromEnd: boolean) => {
    const index = fromEnd ? lines.findLastIndex((line) => line.trim() !== "") : lines.findIndex((line) => line.trim() !== "");
    if (index !== -1 && test(lines[index]!.trim())) lines = fromEnd ? lines.slice(0, index) : lines.slice(index + 1);
  };
  strip((line) => line.startsWith("```"), false);
  strip((line) => line.startsWith("```"), true);
  strip((line) => /^(apply_patch|applypatch)\b.*<<-?\s*['"]?\w+['"]?$/.test(line), false);
  strip((line) => /^['"]?EOF['"]?$/.test(line), true);
  strip((line) => line === "*** Begin Patch", false);
  strip((line) => line === "*** End Patch", true);
  return lines;
}

/** Hunks of an update (the lines after `*** Update File:` or patch mode's `diff`) as replace operations. */
export function parseHunks(given: string[], where: string): TextOp[] {
  // Trailing empty lines are the section's separator or the text's last newline, not context.
  const lines = [...given];
  while (lines.length > 0 && lines[lines.length - 1]!.trim() === "") lines.pop();
  const ops: TextOp[] = [];
  let old: string[] = [];
  let added: string[] = [];
  let anchor: string | undefined;
  let changes = false;
  let atEnd = false;
  const flush = () => {
    if (changes) {
      const join = (rows: string[]) => (rows.length === 0 ? "" : `${rows.join("\n")}\n`);
      ops.push({ kind: "replace", old: join(old), new: join(added), wholeLines: true, ...(anchor ? { anchor } : {}), ...(atEnd ? { atEnd } : {}) });
    }
    old = [];
    added = [];
    anchor = undefined;
    changes = false;
    atEnd = false;
  };
  for (const [i, line] of lines.entries()) {
    if (line.startsWith("@@")) {
      flush();
      // `@@ -3,4 +3,5 @@ heading` (unified diff) and `@@ heading` both anchor on the heading, when there is one.
      const heading = line.replace(/^@@\s*(-\d+(,\d+)?\s+\+\d+(,\d+)?\s*@@)?/, "").replace(/@@\s*$/, "").trim();
      if (heading) anchor = heading;
      continue;
    }
    if (line === "*** End of File") {
      atEnd = true;
      continue;
    }
    if (line.startsWith("***")) throw new PatchSyntaxError(`${where}, line ${i + 1}: unexpected ${JSON.stringify(line)} inside a hunk.`);
    if (line.startsWith("-")) {
      old.push(line.slice(1));
      changes = true;
    } else if (line.startsWith("+")) {
      added.push(line.slice(1));
      changes = true;
    } else {
      // A context line; models often drop the space of an empty one.
      const text = line.startsWith(" ") ? line.slice(1) : line;
      old.push(text);
      added.push(text);
    }
  }
  flush();
  return ops;
}

/** The file changes of an apply_patch input, or a PatchSyntaxError saying what is wrong in it. */
export function parseApplyPatch(input: string): FileChange[] {
  const lines = bodyLines(input);
  const changes: FileChange[] = [];
  let i = 0;
  while (i < lines.length && lines[i]!.trim() === "") i++;
  if (i < lines.length && !FILE_HEADER.test(lines[i]!)) {
    throw new PatchSyntaxError(`Expected "*** Update File: <path>", "*** Add File: <path>" or "*** Delete File: <path>" after "*** Begin Patch", got ${JSON.stringify(lines[i])}.`);
  }
  while (i < lines.length) {
    const header = FILE_HEADER.exec(lines[i]!);
    if (!header) {
      if (lines[i]!.trim() === "") {
        i++;
        continue;
      }
      throw new PatchSyntaxError(`Line ${JSON.stringify(lines[i])} is outside any file section.`);
    }
    const [, verb, path] = header as unknown as [string, string, string];
    let end = i + 1;
    while (end < lines.length && !FILE_HEADER.test(lines[end]!)) end++;
    const section = lines.slice(i + 1, end);
    if (verb === "Delete") {
      if (section.some((line) => line.trim() !== "")) throw new PatchSyntaxError(`*** Delete File: ${path} takes no lines after it.`);
      changes.push({ kind: "delete", path });
    } else if (verb === "Add") {
      while (section.length > 0 && section[section.length - 1] === "") section.pop();
      const bad = section.find((line) => !line.startsWith("+"));
      if (bad !== undefined) throw new PatchSyntaxError(`*** Add File: ${path}: every line must start with +, got ${JSON.stringify(bad)}.`);
      changes.push({ kind: "create", path, content: section.map((line) => `${line.slice(1)}\n`).join("") });
    } else {
      let moveTo: string | undefined;
      const move = /^\*\*\* Move to:\s*(.+?)\s*$/.exec(section[0] ?? "");
      if (move) {
        moveTo = move[1]!;
        section.shift();
      }
      const ops = parseHunks(section, `*** Update File: ${path}`);
      if (ops.length === 0 && !moveTo) throw new PatchSyntaxError(`*** Update File: ${path} has no - or + lines, so it changes nothing.`);
      changes.push({ kind: "update", path, ops, ...(moveTo ? { moveTo } : {}) });
    }
    i = end;
  }
  if (changes.length === 0) throw new PatchSyntaxError("The patch has no file sections.");
  return changes;
}

/** Paths an apply_patch input writes, for the approval gate's scope check; no validation. */
export function applyPatchPaths(input: string): string[] {
  const paths: string[] = [];
  for (const line of input.split("\n")) {
    const match = /^\*\*\* (?:(?:Add|Update|Delete) File|Move to):\s*(.+?)\s*$/.exec(line.replace(/\r$/, ""));
    if (match) paths.push(match[1]!);
  }
  return paths;
}
