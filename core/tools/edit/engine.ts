import { chmodSync, existsSync, lstatSync, readFileSync, realpathSync, statSync, unlinkSync } from "node:fs";
import { accessSync, constants } from "node:fs";
import { isUtf8 } from "node:buffer";
import { writeFileAtomic } from "../../fs/atomic-write.ts";
import { unifiedDiff } from "../diff.ts";
import { errorResult, textResult } from "../format.ts";
import { displayPath, notFoundMessage, resolveToolPath } from "../paths.ts";
import type { ToolContext, ToolResult } from "../types.ts";
import { WriteRefused, recordedChange } from "../file-writes.ts";
import { type Doc, lineRange, numbered, parseDoc, renderDoc, spliceLines } from "./doc.ts";
import { fastApply, windowedDiff } from "./fast-path.ts";
import type { FileChange, LinesOp, TextOp } from "./changes.ts";
import { applyReplace, lfText } from "./match.ts";
import type { FileReadStore } from "./read-store.ts";
import type { EditorBridge } from "../types.ts";
import type { ChangePreview } from "../change-preview.ts";
import { plural } from "../../plural.ts";
import { NotebookEditError, notebookFromView, notebookView } from "../../documents/notebook-edit.ts";

/**
 * The one apply engine behind every edit format (replace, patch, hashline, apply_patch): each
 * format parses its input into file changes, and this finds, checks and writes them — all files
 * or none, with the same tolerance, the same refusals and the same result.
 */

export interface EngineContext {
  cwd: string;
  reads?: FileReadStore;
  /** Name each written file's hashline tag in the result. */
  tags?: boolean;
  /** An editor's buffers (ACP): read and written instead of the disk, so unsaved changes are what is edited. */
  editor?: EditorBridge;
  /** The editor's contents of the files the changes touch, read before planning. */
  buffers?: ReadonlyMap<string, string>;
  /** Where each file's prior content is recorded before the write (file-writes.ts). */
  checkpoints?: ToolContext["checkpoints"];
  toolCallId?: string;
  /** The sandbox policy: a denied file is not read, a guarded write asks (file-writes.ts). */
  paths?: ToolContext["paths"];
  authorizeWrite?: ToolContext["authorizeWrite"];
}

export interface EditDetails {
  path: string;
  diff: string;
  added: number;
  removed: number;
  firstChangedLine?: number;
  files?: { path: string; op: "create" | "update" | "delete"; added: number; removed: number }[];
}

/** Thrown inside the engine for a change that cannot be made; becomes the tool's error result. */
export class EditRefused extends Error {}

export interface Planned {
  op: "create" | "update" | "delete";
  /** Edits (hunks, operations) applied to an update. */
  edits?: number;
  /** What is written (the symlink's target for a link). */
  target: string;
  shown: string;
  /** undefined: the file does not exist before. */
  before?: Uint8Array;
  /** undefined: the file is removed. */
  after?: string;
  /** `after` in its "\n" view, when already known (for the hashline tag). */
  afterLf?: string;
  moveFrom?: string;
  notes: string[];
  diff: { text: string; added: number; removed: number; firstChangedLine?: number };
}

function modeOf(mode: number): string {
  return `0${(mode & 0o777).toString(8)}`;
}

/** Where a write to `path` lands: the file itself, or the target of a symlink. */
function targetOf(path: string): string {
  try {
    if (lstatSync(path).isSymbolicLink()) return realpathSync(path);
  } catch {
    // Missing or dangling: written where named.
  }
  return path;
}

function readText(path: string, shown: string, buffers?: ReadonlyMap<string, string>): { bytes: Uint8Array; text: string } {
  let bytes: Buffer;
  try {
    if (statSync(path).isDirectory()) throw new EditRefused(`${shown} is a directory; edit a file inside it.`);
    const buffer = buffers?.get(path);
    bytes = buffer === undefined ? readFileSync(path) : Buffer.from(buffer, "utf8");
  } catch (error) {
    if (error instanceof EditRefused) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EACCES") throw new EditRefused(`Permission denied: cannot read ${shown}.`);
    throw error;
  }
  if (bytes.includes(0)) throw new EditRefused(`${shown} is a binary file; edits only change text files.`);
  // Decoding would replace invalid bytes, and writing back would then corrupt the rest of the file.
  if (!isUtf8(bytes)) {
    throw new EditRefused(`${shown} is not valid UTF-8 (another encoding, such as Latin-1?); editing would corrupt it. Use bash (iconv, sed) instead.`);
  }
  return { bytes, text: bytes.toString("utf8") };
}

/** A file the user made read-only stays so: refused, naming its mode, before anything is written. */
function assertWritable(path: string, shown: string): void {
  const stat = statSync(path);
  if ((stat.mode & 0o222) === 0) {
    throw new EditRefused(`${shown} is read-only (mode ${modeOf(stat.mode)}); nothing was written. Ask the user before making it writable (chmod u+w).`);
  }
  try {
    accessSync(path, constants.W_OK);
  } catch {
    throw new EditRefused(`${shown} is not writable by this user (mode ${modeOf(stat.mode)}); nothing was written.`);
  }
}

function applyOps(doc: Doc, ops: TextOp[], shown: string): { notes: string[]; touched: [number, number][] } {
  const notes: string[] = [];
  const touched: [number, number][] = [];
  const lineOps = ops.filter((op): op is LinesOp => op.kind === "lines");
  if (lineOps.length > 0) {
    applyLineOps(doc, lineOps, shown);
    for (const op of lineOps) touched.push([op.from, Math.max(op.from, op.to)]);
  }
  let cursor = 0;
  for (const [i, op] of ops.entries()) {
    if (op.kind !== "replace") continue;
    const outcome = applyReplace(doc, op.wholeLines ? { ...op, from: Math.max(op.from ?? 0, cursor) } : op);
    const which = ops.length > 1 ? `Edit ${i + 1} of ${ops.length}` : "The edit";
    if (!outcome.ok) throw new EditRefused(`${which} failed in ${shown}${i > 0 ? " (searched in the file as changed by the edits before it)" : ""}: ${outcome.error}`);
    cursor = outcome.applied.end;
    touched.push([outcome.applied.from, Math.max(outcome.applied.from, outcome.applied.to)]);
    if (outcome.applied.how) notes.push(outcome.applied.how);
    if (op.all && outcome.applied.count > 1) notes.push(`replaced ${outcome.applied.count} occurrences`);
  }
  return { notes, touched };
}

function applyLineOps(doc: Doc, ops: LinesOp[], shown: string): void {
  const count = doc.lines.length - (doc.lines.length === 1 && doc.lines[0] === "" ? 1 : 0);
  const resolved = ops.map((op) => (op.tail ? { ...op, from: count + 1, to: count } : op));
  const sorted = [...resolved].sort((a, b) => a.from - b.from || a.to - b.to);
  for (const [i, op] of sorted.entries()) {
    if (op.from < 1 || op.to > count || op.to < op.from - 1) {
      throw new EditRefused(`Line ${op.to > count ? op.to : op.from} of ${shown} does not exist (it has ${plural(count, "line")}); nothing was written.`);
    }
    const next = sorted[i + 1];
    if (next && op.to >= op.from && next.from <= op.to) {
      throw new EditRefused(`Two changes to ${shown} overlap at ${lineRange(next.from, Math.min(op.to, Math.max(next.to, next.from)))}; give each line range once.`);
    }
  }
  // Bottom up, so the line numbers of the ones above still hold.
  for (const op of sorted.reverse()) spliceLines(doc, op.from - 1, op.to, op.lines);
}

/** The lines of `current` (1-based range) that differ from `before`, or undefined when equal. */
function changedRange(before: string, current: string): [number, number] | undefined {
  const a = parseDoc(before).lines;
  const b = parseDoc(current).lines;
  let prefix = 0;
  while (prefix < a.length && prefix < b.length && a[prefix] === b[prefix]) prefix++;
  let suffix = 0;
  while (suffix < a.length - prefix && suffix < b.length - prefix && a[a.length - 1 - suffix] === b[b.length - 1 - suffix]) suffix++;
  if (prefix === a.length && prefix === b.length) return undefined;
  return [prefix + 1, Math.max(prefix + 1, b.length - suffix)];
}

/** Refuses an edit made from a stale read unless the lines it changes are untouched by what changed since. */
function checkFresh(reads: FileReadStore | undefined, target: string, shown: string, bytes: Uint8Array, text: string, touched: [number, number][]): string | undefined {
  const freshness = reads?.check(target, bytes);
  if (!freshness?.stale) return undefined;
  const lines = parseDoc(text).lines;
  if (freshness.before === undefined) {
    throw new EditRefused(`${shown} changed on disk since you last read it; nothing was written. Read it again and redo the edit on its current content.`);
  }
  const changed = changedRange(freshness.before, text);
  if (!changed) return undefined;
  const overlaps = touched.some(([from, to]) => from <= changed[1] + 1 && to >= changed[0] - 1);
  if (!overlaps) return `${shown} changed on disk at ${lineRange(changed[0], changed[1])} since you last read it; those lines were left as they are now`;
  const shownTo = Math.min(changed[1], changed[0] + 19);
  throw new EditRefused(
    `${shown} changed on disk since you last read it, at ${lineRange(changed[0], changed[1])}, where this edit applies; nothing was written. The file has there now:\n${numbered(lines, changed[0], shownTo)}${shownTo < changed[1] ? "\n…" : ""}\nRedo the edit against these lines.`,
  );
}

function planUpdate(change: Extract<FileChange, { kind: "update" }>, context: EngineContext): Planned {
  const path = resolveToolPath(context.cwd, change.path);
  const target = targetOf(path);
  const shown = displayPath(context.cwd, path);
  if (!existsSync(target)) {
    const only = change.ops.length === 1 ? change.ops[0] : undefined;
    // An empty old text on a missing file creates it, as Claude-trained models expect.
    if (only?.kind === "replace" && only.old === "") return planCreate({ kind: "create", path: change.path, content: only.new }, context);
    throw new EditRefused(`${notFoundMessage(context.cwd, path)}\nTo create a file, use write (or an empty old text).`);
  }
  const { bytes, text } = readText(target, shown, context.buffers);
  assertWritable(target, shown);
  const bom = text.startsWith("\uFEFF") ? "\uFEFF" : "";
  const body = text.slice(bom.length);
  // A CRLF file's tag is the tag of its "\n" view, as the full engine computes it.
  const tagOf = () => (body.includes("\r") ? lfText(parseDoc(text)) : body);
  if (change.tag !== undefined && change.tag !== hashlineTag(tagOf())) {
    const lines = parseDoc(text).lines;
    throw new EditRefused(
      `The tag #${change.tag} for ${shown} does not match its current content (#${hashlineTag(tagOf())}): it changed since that read. Nothing was written; the file is now:\n${numbered(lines, 1, Math.min(lines.length, 40))}${lines.length > 40 ? "\n…" : ""}`,
    );
  }
  const notebook = /\.ipynb$/i.test(target) ? planNotebook(change, context, { target, shown, bytes, text }) : undefined;
  if (notebook) return notebook;
  const onlyOp = change.ops.length === 1 ? change.ops[0] : undefined;
  if (onlyOp?.kind === "replace" && onlyOp.old === "" && !onlyOp.wholeLines) {
    if (text !== "") throw new EditRefused(`The old text is empty but ${shown} is not. Give the exact text to replace; to add text, include a neighbouring line in the old and the new text.`);
    return { op: "update", target, shown, before: bytes, after: onlyOp.new, notes: [], diff: unifiedDiff("", onlyOp.new, shown) };
  }
  const result = editText(change, context, { target, shown, bytes, text });
  const { after, notes } = result;
  if (after === text && !change.moveTo) throw new EditRefused(`The changes leave ${shown} as it is; nothing was written.`);
  const planned: Planned = { op: "update", edits: change.ops.length, target, shown, before: bytes, after, afterLf: result.afterLf, notes, diff: windowedDiff(result.beforeLf, result.afterLf, shown) };
  if (change.moveTo !== undefined) {
    const to = resolveToolPath(context.cwd, change.moveTo);
    if (existsSync(to)) throw new EditRefused(`Cannot move ${shown} to ${displayPath(context.cwd, to)}: that file exists.`);
    return { ...planned, target: to, shown: displayPath(context.cwd, to), before: undefined, moveFrom: target, notes: [...notes, `moved from ${shown}`] };
  }
  return planned;
}

interface Read {
  target: string;
  shown: string;
  bytes: Uint8Array;
  text: string;
}

/** The text as `change`'s operations leave it, with notes and the lines they touched; throws EditRefused for one that misses. */
function editText(change: Extract<FileChange, { kind: "update" }>, context: EngineContext, { target, shown, bytes, text }: Read): { after: string; beforeLf: string; afterLf: string; notes: string[] } {
  const bom = text.startsWith("\uFEFF") ? "\uFEFF" : "";
  const body = text.slice(bom.length);
  for (const op of change.ops) {
    if (op.kind === "replace" && op.old === op.new && op.old !== "") throw new EditRefused(`The old and the new text of an edit to ${shown} are identical, so it would change nothing.`);
  }
  const fast = fastApply(body, change.ops);
  let result: { after: string; beforeLf: string; afterLf: string; notes: string[]; touched: [number, number][] };
  if (fast) result = { after: bom + fast.text, beforeLf: body, afterLf: fast.text, notes: [], touched: fast.touched };
  else {
    const doc = parseDoc(text);
    const beforeLf = lfText(doc);
    let applied: { notes: string[]; touched: [number, number][] };
    try {
      applied = applyOps(doc, change.ops, shown);
    } catch (error) {
      // The likeliest reason an edit misses is that the file changed since the model read it.
      const freshness = error instanceof EditRefused ? context.reads?.check(target, bytes) : undefined;
      if (!freshness?.stale) throw error;
      const changed = freshness.before === undefined ? undefined : changedRange(freshness.before, text);
      const where = changed ? ` at ${lineRange(changed[0], changed[1])}` : "";
      throw new EditRefused(`${shown} changed on disk since you last read it${where}. ${(error as Error).message}`);
    }
    result = { after: renderDoc(doc), beforeLf, afterLf: lfText(doc), ...applied };
  }
  const stale = checkFresh(context.reads, target, shown, bytes, text, result.touched);
  if (stale) result.notes.push(stale);
  return result;
}

/**
 * A notebook is edited in the cell form read shows (core/documents/notebook-edit.ts), the diff
 * shown in it too; undefined when the file is no notebook, or the edits are of its JSON (read :raw).
 */
function planNotebook(change: Extract<FileChange, { kind: "update" }>, context: EngineContext, read: Read): Planned | undefined {
  if (change.moveTo !== undefined || change.tag !== undefined) return undefined;
  const view = notebookView(read.text, read.shown);
  if (view === undefined) return undefined;
  let edited: ReturnType<typeof editText>;
  try {
    edited = editText(change, context, { ...read, text: view });
  } catch (error) {
    if (!(error instanceof EditRefused)) throw error;
    try {
      editText(change, context, read);
    } catch {
      throw error;
    }
    return undefined;
  }
  let after: string;
  try {
    after = notebookFromView(edited.after, read.text);
  } catch (error) {
    if (error instanceof NotebookEditError) throw new EditRefused(`${read.shown}: ${error.message} Nothing was written.`);
    throw error;
  }
  if (after === read.text) throw new EditRefused(`The changes leave ${read.shown} as it is; nothing was written.`);
  return { op: "update", edits: change.ops.length, target: read.target, shown: read.shown, before: read.bytes, after, afterLf: after, notes: edited.notes, diff: windowedDiff(view, edited.afterLf, read.shown) };
}

function planCreate(change: Extract<FileChange, { kind: "create" }>, context: EngineContext): Planned {
  const path = resolveToolPath(context.cwd, change.path);
  const shown = displayPath(context.cwd, path);
  if (existsSync(path)) throw new EditRefused(`${shown} already exists; change it with an update (or write to replace it whole).`);
  return { op: "create", target: targetOf(path), shown, after: change.content, notes: [], diff: unifiedDiff("", change.content, shown) };
}

function planDelete(change: Extract<FileChange, { kind: "delete" }>, context: EngineContext): Planned {
  const path = resolveToolPath(context.cwd, change.path);
  const shown = displayPath(context.cwd, path);
  if (!existsSync(path)) throw new EditRefused(`${notFoundMessage(context.cwd, path)}\nThere is nothing to delete.`);
  const { bytes, text } = readText(path, shown, context.buffers);
  assertWritable(path, shown);
  return { op: "delete", target: path, shown, before: bytes, notes: [], diff: unifiedDiff(text, "", shown) };
}

/** 4 uppercase hex digits derived from the content: the `[PATH#TAG]` of the hashline format. */
export function hashlineTag(lf: string): string {
  return Bun.hash.crc32(lf).toString(16).toUpperCase().padStart(8, "0").slice(-4);
}

/** Writes every planned file; if one fails, the ones already written get their old content back. */
function writeAll(plans: Planned[], context: EngineContext): void {
  const done: Planned[] = [];
  try {
    for (const plan of plans) {
      if (plan.after === undefined) unlinkSync(plan.target);
      else {
        // A moved file keeps the mode of the one it came from.
        const mode = plan.moveFrom ? statSync(plan.moveFrom).mode & 0o7777 : undefined;
        writeFileAtomic(plan.target, plan.after, { mode: "user" });
        if (mode !== undefined) chmodSync(plan.target, mode);
        if (plan.moveFrom) unlinkSync(plan.moveFrom);
      }
      done.push(plan);
    }
  } catch (error) {
    for (const plan of done.reverse()) {
      try {
        if (plan.before !== undefined) writeFileAtomic(plan.target, plan.before, { mode: "user" });
        else if (plan.after !== undefined) unlinkSync(plan.target);
      } catch {
        // Best effort: the error below says the write failed.
      }
    }
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EACCES" || code === "EPERM" || code === "EROFS") {
      throw new EditRefused(`Permission denied writing ${plans[done.length]?.shown ?? "a file"} (${code}); nothing was changed.`);
    }
    throw error;
  }
  for (const plan of plans) {
    if (plan.after === undefined) context.reads?.forget(plan.target);
    else context.reads?.recordWrite(plan.target, Buffer.from(plan.after, "utf8"));
  }
}

/** What every change would write, with nothing written yet; throws EditRefused for one that cannot be made. */
export function planChanges(changes: FileChange[], context: EngineContext): Planned[] {
  const plans = changes.map((change) =>
    change.kind === "update" ? planUpdate(change, context) : change.kind === "create" ? planCreate(change, context) : planDelete(change, context),
  );
  const targets = plans.map((plan) => plan.target);
  const twice = targets.find((target, i) => targets.indexOf(target) !== i);
  if (twice) throw new EditRefused(`${displayPath(context.cwd, twice)} is changed by two sections; put all its changes in one.`);
  return plans;
}

/** The editor's buffers of the existing files the changes read (a file it cannot give is read from disk). */
async function editorBuffers(changes: FileChange[], context: EngineContext, editor: EditorBridge & { readTextFile: NonNullable<EditorBridge["readTextFile"]> }): Promise<Map<string, string>> {
  const buffers = new Map<string, string>();
  for (const change of changes) {
    if (change.kind === "create") continue;
    const target = targetOf(resolveToolPath(context.cwd, change.path));
    if (!existsSync(target) || buffers.has(target)) continue;
    try {
      buffers.set(target, await editor.readTextFile(target));
    } catch {
      // Not open or not readable through the editor: the disk's copy is planned against.
    }
  }
  return buffers;
}

/** Writes through the editor, which keeps its buffers and undo history; what it cannot do (delete, move) happens on disk. */
async function writeThroughEditor(plans: Planned[], editor: EditorBridge & { writeTextFile: NonNullable<EditorBridge["writeTextFile"]> }): Promise<void> {
  for (const plan of plans) {
    if (plan.after === undefined) unlinkSync(plan.target);
    else {
      try {
        await editor.writeTextFile(plan.target, plan.after);
      } catch (error) {
        throw new EditRefused(`${plan.shown} was not written: ${(error as Error).message}.`);
      }
    }
    if (plan.moveFrom) unlinkSync(plan.moveFrom);
  }
}

/** What the changes would write, file by file, with nothing written; undefined for changes that will be refused. */
export async function previewChanges(changes: FileChange[], context: EngineContext): Promise<ChangePreview[] | undefined> {
  try {
    const editor = context.editor;
    const buffers = editor?.readTextFile ? await editorBuffers(changes, context, { ...editor, readTextFile: editor.readTextFile }) : undefined;
    return planChanges(changes, buffers ? { ...context, buffers } : context).map((plan) => ({
      path: plan.target,
      shown: plan.shown,
      op: plan.op,
      oldText: plan.before === undefined ? null : Buffer.from(plan.before).toString("utf8"),
      newText: plan.after ?? null,
      diff: plan.diff.text,
      added: plan.diff.added,
      removed: plan.diff.removed,
    }));
  } catch (error) {
    if (error instanceof EditRefused) return undefined;
    throw error;
  }
}

/** Plans every change first (so any refusal leaves every file as it was), then writes them all. */
export async function applyChanges(changes: FileChange[], context: EngineContext): Promise<ToolResult<EditDetails>> {
  let plans: Planned[];
  try {
    // An edit reads its files first (a near match can quote them): a denied one is refused before.
    for (const change of changes) {
      const verdict = context.paths?.check(resolveToolPath(context.cwd, change.path), "read");
      if (verdict?.kind === "denied") throw new EditRefused(verdict.message);
    }
    const editor = context.editor;
    const buffers = editor?.readTextFile ? await editorBuffers(changes, context, { ...editor, readTextFile: editor.readTextFile }) : undefined;
    plans = planChanges(changes, buffers ? { ...context, buffers } : context);
    const touched = plans.flatMap((plan) => (plan.moveFrom ? [plan.target, plan.moveFrom] : [plan.target]));
    const save = editor?.writeTextFile;
    await recordedChange(context, touched, () => (save ? writeThroughEditor(plans, { ...editor, writeTextFile: save }) : writeAll(plans, context)));
  } catch (error) {
    if (error instanceof EditRefused || error instanceof WriteRefused) return errorResult(`${error.message}${/nothing was (written|changed)/i.test(error.message) ? "" : "\nNo changes were written."}`);
    throw error;
  }
  const blocks = plans.map((plan) => {
    const verb = plan.op === "create" ? "Created" : plan.op === "delete" ? "Deleted" : "Edited";
    const tag = context.tags && plan.after !== undefined ? ` [${plan.shown}#${hashlineTag(plan.afterLf ?? lfText(parseDoc(plan.after)))}]` : "";
    const notes = plan.notes.length > 0 ? ` (${plan.notes.join("; ")})` : "";
    const applied = plan.edits ? `${plural(plan.edits, "edit")} applied, ` : "";
    return `${verb} ${plan.shown}: ${applied}+${plan.diff.added} -${plan.diff.removed} lines${notes}.${tag}\n\n${plan.diff.text}`;
  });
  const first = plans[0]!;
  const details: EditDetails = {
    path: first.target,
    diff: plans.map((plan) => plan.diff.text).join(""),
    added: plans.reduce((sum, plan) => sum + plan.diff.added, 0),
    removed: plans.reduce((sum, plan) => sum + plan.diff.removed, 0),
    ...(first.diff.firstChangedLine === undefined ? {} : { firstChangedLine: first.diff.firstChangedLine }),
    ...(plans.length > 1 ? { files: plans.map((plan) => ({ path: plan.target, op: plan.op, added: plan.diff.added, removed: plan.diff.removed })) } : {}),
  };
  return textResult(blocks.join("\n"), details);
}
