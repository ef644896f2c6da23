import { declared } from "./declare.ts";
import { READ_DEFAULT_LIMIT, READ_MAX_LINE_CHARS, read as readDeclaration } from "./declarations/read.ts";
import { type Dirent, type Stats, readdirSync, readFileSync, statSync } from "node:fs";
import { open, readFile } from "node:fs/promises";
import { z } from "zod";
import { describeBinary, detectImage, hasBinaryExtension, IMAGE_MIME, imageSize, looksBinary } from "./file-kind.ts";
import { errorResult, textResult } from "./format.ts";
import { formatBytes } from "../format-bytes.ts";
import { displayPath, isDirectory, notFoundMessage, readRefusal } from "./paths.ts";
import { type ReadRange, urlReaderFor } from "./internal-urls.ts";
import type { ToolContext, ToolDefinition, ToolResult } from "./types.ts";
import { isDirEntry } from "../fs/dir-entry.ts";
import { isArchivePath, isSqliteFile, isSqlitePath } from "../archives/detect.ts";
import { documentKind } from "../documents/convert.ts";
import { type LineSpan, type ReadTarget, resolveReadTarget, SelectorError } from "./read-path.ts";
import { plural } from "../plural.ts";
import type { PageDetails, ReadDetails } from "./read-details.ts";

/** Directories list fewer entries by default: a huge listing is rarely what the model wants. */
export const READ_DIR_DEFAULT_LIMIT = 500;
/** Keeps a page of very long lines from flooding the context even under the line limit. */
const MAX_OUTPUT_CHARS = 200_000;
/** Providers reject larger images; 3.75 MB is 5 MB once base64-encoded. */
export const READ_MAX_IMAGE_BYTES = 3.75 * 1024 * 1024;
const SNIFF_BYTES = 8192;
const CHUNK_BYTES = 64 * 1024;
/**
 * Files up to this size are read at once, on the calling thread: one open and read instead of two
 * opens and a read per chunk on the thread pool, and the bytes read are what the read store hashes.
 * Bigger ones are streamed, so a page of a huge log costs memory for the page alone.
 */
const WHOLE_READ_BYTES = 1024 * 1024;
/** Enough bytes for READ_MAX_LINE_CHARS characters in any UTF-8 text. */
const MAX_LINE_BYTES = READ_MAX_LINE_CHARS * 4;

const schema = z.object({
  path: z.string().describe("Relative, absolute or ~ path"),
  offset: z.int().min(1).optional().describe("First line, 1-based (directories: entry)"),
  limit: z
    .int()
    .min(1)
    .optional()
    .describe(`Most lines (default ${READ_DEFAULT_LIMIT}; directories: ${READ_DIR_DEFAULT_LIMIT} entries)`),
});
type ReadInput = z.infer<typeof schema>;

export const readTool: ToolDefinition<typeof schema, ReadDetails> = {
  ...declared(readDeclaration),
  schema,
  async execute(input, context) {
    if (/^https?:\/\//i.test(input.path)) return readUrl(input, context);
    const url = urlReaderFor(input.path);
    if (typeof url === "string") return errorResult(url);
    if (url) return url(input.path, input, context);
    let target: ReadTarget;
    try {
      target = resolveReadTarget(context.cwd, input.path);
    } catch (error) {
      if (error instanceof SelectorError) return errorResult(error.message);
      throw error;
    }
    const { path } = target;
    // Every format (text, documents, archives, SQLite, notebooks, images) is read from this path.
    const refused = readRefusal(context, path);
    if (refused !== undefined) return errorResult(refused);
    if (target.range) input = { ...input, ...target.range };
    if (target.conflicts) return (await import("./conflicts.ts")).readConflicts(path, context);
    if (target.ranges && (target.sqlite || target.member !== undefined || (!target.raw && (documentKind(path) || isArchivePath(path))) || isDirectory(path))) {
      return errorResult(`Range lists (:A-B,C-D) read lines of a text file; read ${displayPath(context.cwd, path)} one range at a time.`);
    }
    if (target.sqlite || target.member !== undefined) return (await import("./read-formats.ts")).readFormatted(target, input, context);
    let stat: Stats;
    try {
      stat = statSync(path);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT" || code === "ENOTDIR") return errorResult(notFoundMessage(context.cwd, path));
      if (code === "EACCES") return errorResult(`Permission denied: ${displayPath(context.cwd, path)}`);
      throw error;
    }
    if (stat.isDirectory()) return readDirectory(path, input, context);
    if (!stat.isFile()) {
      return errorResult(`${displayPath(context.cwd, path)} is not a regular file (a device, socket or pipe), so it cannot be read.`);
    }
    // The model may edit what it reads: its language server starts now, off this call's path.
    context.lsp?.touch(path);
    if (!target.raw && (documentKind(path) || isArchivePath(path) || (isSqlitePath(path) && isSqliteFile(path)))) {
      return (await import("./read-formats.ts")).readFormatted({ ...target, ...(isSqlitePath(path) && !isArchivePath(path) && !documentKind(path) ? { sqlite: { params: new URLSearchParams() } } : {}) }, input, context);
    }
    return readFileAt(path, stat, input, context, target);
  },
};

/** An http(s) URL: the network effect asks where the approval mode wants it (read itself is a read). */
async function readUrl(input: ReadInput, context: ToolContext): Promise<ToolResult<ReadDetails>> {
  const approval = await context.approve?.("read", "read of web URLs", `read fetches ${input.path}`, "network", input.path);
  if (approval && !approval.allow) return errorResult(approval.message);
  return (await import("./fetch-page.ts")).fetchForModel({ url: input.path, offset: input.offset, limit: input.limit }, context, "read");
}

async function readHead(path: string): Promise<Uint8Array> {
  const handle = await open(path, "r");
  try {
    const buffer = new Uint8Array(SNIFF_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, SNIFF_BYTES, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

async function readFileAt(path: string, stat: Stats, input: ReadInput, context: ToolContext, target: ReadTarget): Promise<ToolResult<ReadDetails>> {
  const { size } = stat;
  const shown = displayPath(context.cwd, path);
  const whole = size <= WHOLE_READ_BYTES ? readFileSync(path) : undefined;
  const head = whole ? whole.subarray(0, SNIFF_BYTES) : await readHead(path);
  const image = detectImage(head);
  if (image) {
    const dims = imageSize(head, image);
    const description = `${image.toUpperCase()} image, ${dims ? `${dims.width}×${dims.height}, ` : ""}${formatBytes(size)}`;
    const details: ReadDetails = { kind: "image", path, format: image, bytes: size, ...dims };
    if (size > READ_MAX_IMAGE_BYTES) {
      return errorResult(
        `${shown}: ${description}, too large to attach (limit ${formatBytes(READ_MAX_IMAGE_BYTES)}). Make a smaller copy (for example with ImageMagick: convert in.png -resize 50% small.png) and read that.`,
        details,
      );
    }
    const data = Buffer.from(whole ?? (await readFile(path))).toString("base64");
    return {
      content: [
        { type: "text", text: `${shown}: ${description}` },
        { type: "image", data, mimeType: IMAGE_MIME[image] },
      ],
      details,
    };
  }
  if (looksBinary(head) || hasBinaryExtension(path)) {
    const kind = describeBinary(head);
    return textResult(
      `${shown} is a binary file (${kind}, ${formatBytes(size)}); its bytes are not shown. Use bash with a suitable tool (file, xxd, unzip -l, sqlite3, ...) if you need to look inside.`,
      { kind: "binary", path, description: kind, bytes: size },
    );
  }
  // An editor's buffer, unsaved changes included, is what the user sees: the model reads that.
  const shape = { raw: target.raw === true };
  if (context.editor?.readTextFile) {
    const text = await context.editor.readTextFile(path);
    if (target.ranges) return readSpans(shown, target.ranges, shape, (span) => pageOf(text, span.start, spanLimit(span)));
    return readTextOf(shown, text, input, shape);
  }
  if (whole) context.fileReads?.recordBytes(path, stat, whole);
  else context.fileReads?.recordFile(path);
  const pageAt = (first: number, limit: number) => (whole ? bytesPage(whole, first, limit) : readPage(path, first, limit));
  if (target.ranges) return readSpans(shown, target.ranges, shape, (span) => pageAt(span.start, spanLimit(span)));
  const page = await pageAt(input.offset ?? 1, input.limit ?? context.settings?.read.defaultLimit ?? READ_DEFAULT_LIMIT);
  return pageResult(shown, path, page, shape);
}

const spanLimit = (span: LineSpan) => (span.end === undefined ? READ_DEFAULT_LIMIT : span.end - span.start + 1);

/** How a page is shown: `raw` (`:raw`) leaves the lines without their numbers. */
interface PageShape {
  raw: boolean;
}

/** `:A-B,C-D`: each range's lines, in order, a `...` line between ranges that do not touch. */
async function readSpans(shown: string, spans: LineSpan[], shape: PageShape, pageAt: (span: LineSpan) => TextPage | Promise<TextPage>): Promise<ToolResult<ReadDetails>> {
  const pieces: string[] = [];
  let total = 0;
  const missing: string[] = [];
  for (const span of spans) {
    const page = await pageAt(span);
    total = page.totalLines;
    if (span.start > page.totalLines) {
      missing.push(`${span.start}${span.end === undefined ? "-" : `-${span.end}`}`);
      continue;
    }
    pieces.push(numbered(page, shape));
    if (page.outputCapped) break;
  }
  const details: PageDetails = { kind: "text", path: shown, startLine: spans[0]!.start, endLine: Math.min(total, spans[spans.length - 1]!.end ?? total), totalLines: total, truncated: false };
  if (pieces.length === 0) return errorResult(`${shown} has ${plural(total, "line")}; lines ${missing.join(", ")} do not exist.`, details);
  const note = missing.length > 0 ? `\n\n[${shown} has ${plural(total, "line")}; lines ${missing.join(", ")} do not exist.]` : "";
  return textResult(pieces.join(shape.raw ? "\n" : "\n...\n") + note, details);
}

interface TextPage {
  lines: string[];
  firstLine: number;
  totalLines: number;
  /** Stopped before `limit` because the output grew past MAX_OUTPUT_CHARS. */
  outputCapped: boolean;
  cutLines: number;
  outputChars: number;
}

/**
 * Adds a wanted line to the page; false once the page is full (its line limit, or MAX_OUTPUT_CHARS).
 * `decoded` is the line's first MAX_LINE_BYTES bytes or more, decoded; `byteLength` its whole length.
 */
function addLine(page: TextPage, decoded: string, byteLength: number, limit: number): boolean {
  const text = decoded.endsWith("\r") ? decoded.slice(0, -1) : decoded;
  const cut = text.length > READ_MAX_LINE_CHARS || byteLength > MAX_LINE_BYTES;
  const shown = cut ? `${text.slice(0, READ_MAX_LINE_CHARS)}… [line cut at ${READ_MAX_LINE_CHARS} chars; it is ${formatBytes(byteLength)} long]` : text;
  if (page.outputChars + shown.length > MAX_OUTPUT_CHARS && page.lines.length > 0) {
    page.outputCapped = true;
    return false;
  }
  page.lines.push(shown);
  page.outputChars += shown.length + 8;
  if (cut) page.cutLines++;
  return page.lines.length < limit;
}

/** One decoder for every line: a decode() without `stream` starts afresh each time, as a new decoder would. */
const lineDecoder = new TextDecoder();

/**
 * Splits bytes fed in pieces (a file's chunks, or all of it at once) into the page's lines: only
 * the requested lines are decoded, the rest are merely counted.
 */
function pageSplitter(firstLine: number, limit: number): { feed(data: Uint8Array, reused: boolean): void; end(): TextPage } {
  const page: TextPage = { lines: [], firstLine, totalLines: 0, outputCapped: false, cutLines: 0, outputChars: 0 };
  let lineNumber = 1;
  let pieces: Uint8Array[] = [];
  let kept = 0;
  let lineBytes = 0;
  let collecting = true;
  let endsWithNewline = true;

  const wanted = () => collecting && lineNumber >= firstLine;
  const finishLine = () => {
    if (wanted()) collecting = addLine(page, lineDecoder.decode(pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces)), lineBytes, limit);
    pieces = [];
    kept = 0;
    lineBytes = 0;
    lineNumber++;
  };
  const take = (bytes: Uint8Array, reused: boolean) => {
    lineBytes += bytes.length;
    if (!wanted() || kept >= MAX_LINE_BYTES) return;
    const slice = bytes.subarray(0, MAX_LINE_BYTES - kept);
    // A reused chunk buffer is overwritten by the next read, so kept bytes must be copied out of it.
    pieces.push(reused ? slice.slice() : slice);
    kept += slice.length;
  };
  return {
    feed(data, reused) {
      if (data.length === 0) return;
      let start = 0;
      for (;;) {
        const newline = data.indexOf(10, start);
        if (newline === -1) break;
        take(data.subarray(start, newline), reused);
        finishLine();
        start = newline + 1;
      }
      if (start < data.length) take(data.subarray(start), reused);
      endsWithNewline = data[data.length - 1] === 10;
    },
    end() {
      // A last line without a newline is still a line.
      if (!endsWithNewline) finishLine();
      page.totalLines = lineNumber - 1;
      return page;
    },
  };
}

/**
 * A page of a file read whole (see WHOLE_READ_BYTES): the page's bytes are decoded at once and split,
 * the same text as decoding line by line (a UTF-8 decoder never takes a newline into a character),
 * with a byte-order mark dropped at each line's start as a decoder started afresh on each line drops it.
 */
function bytesPage(bytes: Uint8Array, firstLine: number, limit: number): TextPage {
  const page: TextPage = { lines: [], firstLine, totalLines: 0, outputCapped: false, cutLines: 0, outputChars: 0 };
  // Where the line starting at `from` ends (its newline, or the end of a last line without one); -1 past the last line.
  const lineEnd = (from: number) => {
    const newline = bytes.indexOf(10, from);
    return newline !== -1 ? newline : from < bytes.length ? bytes.length : -1;
  };
  let at = 0;
  let total = 0;
  for (let end; total < firstLine - 1 && (end = lineEnd(at)) !== -1; total++) at = end + 1;
  const pageStart = at;
  const ends: number[] = [];
  for (let end; ends.length < limit && (end = lineEnd(at)) !== -1; ) {
    ends.push(end);
    at = end + 1;
  }
  page.totalLines = total + ends.length;
  for (let end; (end = lineEnd(at)) !== -1; page.totalLines++) at = end + 1;
  if (ends.length === 0) return page;
  const lines = lineDecoder.decode(bytes.subarray(pageStart, ends[ends.length - 1])).split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = i > 0 && lines[i]!.charCodeAt(0) === 0xfeff ? lines[i]!.slice(1) : lines[i]!;
    if (!addLine(page, line, ends[i]! - (i === 0 ? pageStart : ends[i - 1]! + 1), limit)) break;
  }
  return page;
}

/** A page of a file streamed in chunks: memory for the page alone, however big the file. */
async function readPage(path: string, firstLine: number, limit: number): Promise<TextPage> {
  const splitter = pageSplitter(firstLine, limit);
  const handle = await open(path, "r");
  const chunk = new Uint8Array(CHUNK_BYTES);
  try {
    for (;;) {
      const { bytesRead } = await handle.read(chunk, 0, CHUNK_BYTES, null);
      if (bytesRead === 0) break;
      splitter.feed(chunk.subarray(0, bytesRead), true);
    }
  } finally {
    await handle.close();
  }
  return splitter.end();
}

/**
 * Text that is not a file (an MCP resource), paged and numbered as a file's would be: `shown`
 * names it in the notes.
 */
export function readTextOf(shown: string, text: string, range: ReadRange, shape: PageShape = { raw: false }): ToolResult<PageDetails> {
  return pageResult(shown, shown, pageOf(text, range.offset ?? 1, range.limit ?? READ_DEFAULT_LIMIT), shape);
}

function pageOf(text: string, firstLine: number, limit: number): TextPage {
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  const page: TextPage = { lines: [], firstLine, totalLines: lines.length, outputCapped: false, cutLines: 0, outputChars: 0 };
  for (const line of lines.slice(firstLine - 1)) {
    const bytes = Buffer.from(line);
    if (!addLine(page, lineDecoder.decode(bytes.subarray(0, MAX_LINE_BYTES)), bytes.length, limit)) break;
  }
  return page;
}

/**
 * The page's lines, each after its number and a tab unless raw. Unpadded, as the original omp
 * numbers them: cat -n's six-column padding was 4-5 bytes on every line of every read, in every
 * later request of the conversation.
 */
function numbered(page: TextPage, shape: PageShape): string {
  if (shape.raw) return page.lines.join("\n");
  return page.lines.map((line, i) => `${page.firstLine + i}\t${line}`).join("\n");
}

function pageResult(shown: string, path: string, page: TextPage, shape: PageShape): ToolResult<PageDetails> {
  const { firstLine } = page;
  const details: PageDetails = {
    kind: "text",
    path,
    startLine: firstLine,
    endLine: firstLine + page.lines.length - 1,
    totalLines: page.totalLines,
    truncated: false,
  };
  if (page.totalLines === 0) return textResult(`${shown} is empty (0 lines).`, details);
  if (firstLine > page.totalLines) {
    return errorResult(
      `offset ${firstLine} is past the end of ${shown}, which has ${plural(page.totalLines, "line")}. Use an offset from 1 to ${page.totalLines}.`,
      details,
    );
  }
  let text = numbered(page, shape);
  const notes: string[] = [];
  if (details.endLine < page.totalLines) {
    details.truncated = true;
    const why = page.outputCapped ? " (output size limit reached)" : "";
    notes.push(
      `[Showing lines ${firstLine}-${details.endLine} of ${page.totalLines}${why}. Use offset=${details.endLine + 1} to read more.]`,
    );
  }
  if (page.cutLines > 0) {
    notes.push(
      `[${plural(page.cutLines, "line was", "lines were")} longer than ${READ_MAX_LINE_CHARS} chars and cut; use bash (e.g. cut -c, jq, fold) to see the rest of such lines.]`,
    );
  }
  if (notes.length > 0) text += `\n\n${notes.join("\n")}`;
  return textResult(text, details);
}

function readDirectory(path: string, input: ReadInput, context: ToolContext): ToolResult<ReadDetails> {
  const shown = displayPath(context.cwd, path);
  let entries: Dirent[];
  try {
    entries = readdirSync(path, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EACCES") return errorResult(`Permission denied: cannot list ${shown}`);
    throw error;
  }
  const names = entries
    .map((entry) => (isDirEntry(path, entry) ? `${entry.name}/` : entry.name))
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const first = input.offset ?? 1;
  const limit = input.limit ?? READ_DIR_DEFAULT_LIMIT;
  const page = names.slice(first - 1, first - 1 + limit);
  const last = first + page.length - 1;
  const details: ReadDetails = { kind: "directory", path, entries: names.length, startEntry: first, endEntry: last };
  if (names.length === 0) return textResult(`${shown}/ is an empty directory.`, details);
  if (page.length === 0) {
    return errorResult(`offset ${first} is past the end of ${shown}/, which has ${plural(names.length, "entry", "entries")}.`, details);
  }
  let text = `${shown}/ (${plural(names.length, "entry", "entries")})\n${page.join("\n")}`;
  if (last < names.length || first > 1) {
    text += `\n\n[Showing entries ${first}-${last} of ${names.length}.${last < names.length ? ` Use offset=${last + 1} to see more, or find to narrow down.` : ""}]`;
  }
  return textResult(text, details);
}
