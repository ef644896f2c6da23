import { statSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { ArchiveError } from "../archives/archive-error.ts";
import { archiveChildren, memberPath, openArchive } from "../archives/archive.ts";
import { readSqliteBounded } from "../documents/sqlite-process.ts";
import { checkDocumentSize, convertDocument, type DocumentContent, type DocumentKind, documentKind, pageSection } from "../documents/convert.ts";
import { describeBinary, detectImage, IMAGE_MIME, looksBinary } from "./file-kind.ts";
import { errorResult, textResult } from "./format.ts";
import { formatBytes } from "../format-bytes.ts";
import type { ReadRange } from "./internal-urls.ts";
import { displayPath } from "./paths.ts";
import { READ_DIR_DEFAULT_LIMIT, READ_MAX_IMAGE_BYTES, readTextOf } from "./read.ts";
import type { ReadTarget } from "./read-path.ts";
import type { ToolContext, ToolResult } from "./types.ts";
import { plural } from "../plural.ts";
import type { ReadDetails } from "./read-details.ts";

/** Documents, archives and databases in `read`; each format's library loads here, on its first file. */
export async function readFormatted(target: ReadTarget, range: ReadRange, context: ToolContext): Promise<ToolResult<ReadDetails>> {
  const shown = displayPath(context.cwd, target.path);
  try {
    if (target.sqlite) return textResult(await readSqliteBounded(target.path, shown, target.sqlite, context.signal), { kind: "sqlite", path: target.path });
    if (target.member !== undefined || /\.(zip|tar|tar\.gz|tgz)$/i.test(target.path)) return await readArchive(target, shown, range);
    const kind = documentKind(target.path)!;
    checkDocumentSize(kind, statSync(target.path).size, shown);
    return documentResult(shown, target.path, kind, await convertDocument(await readFile(target.path), kind, shown), range);
  } catch (error) {
    if (error instanceof ArchiveError) return errorResult(error.message, { kind: "error", path: target.path, error: error.kind });
    throw error;
  }
}

function documentResult(shown: string, path: string, kind: DocumentKind, content: DocumentContent, range: ReadRange): ToolResult<ReadDetails> {
  let text = content.text;
  let pageRange = range;
  let note = "";
  // A PDF's selector picks pages; paging within them is by line.
  if (content.pages && range.offset !== undefined) {
    const first = range.offset;
    const last = Math.min(content.pages.length, range.limit !== undefined ? first + range.limit - 1 : first);
    if (first > content.pages.length) return errorResult(`${shown} has ${plural(content.pages.length, "page")}; page ${first} does not exist.`);
    text = content.pages.slice(first - 1, last).map((page, i) => pageSection(first + i, page)).join("\n\n");
    note = `pages ${first}-${last} of ${content.pages.length}`;
    pageRange = {};
  } else if (content.pages) note = `${plural(content.pages.length, "page")}; read ${shown}:A-B for pages A to B`;
  const paged = readTextOf(shown, text, pageRange);
  const body = paged.content[0]?.type === "text" ? paged.content[0].text : "";
  // Text formats can be edited: the model needs their own lines for that.
  const raw =
    kind === "ipynb" ? `; edit or write cells in this form — a new "# %% [code]" marker inserts a cell, outputs are kept — or ${shown}:raw for its JSON` : kind === "csv" || kind === "tsv" ? `; ${shown}:raw for its own text, to edit it` : "";
  const header = `${shown} (${kind.toUpperCase()} converted to text${note ? `, ${note}` : ""}${raw})`;
  const images = content.images.map((image) => ({ type: "image" as const, data: image.data, mimeType: image.mimeType }));
  return {
    content: [{ type: "text", text: `${header}\n${body}` }, ...images],
    ...(paged.isError ? { isError: true } : {}),
    details: { ...paged.details, kind: "document", format: kind, path, ...(content.pages ? { pages: content.pages.length } : {}), images: images.length },
  };
}

async function readArchive(target: ReadTarget, shown: string, range: ReadRange): Promise<ToolResult<ReadDetails>> {
  const archive = await openArchive(target.path, shown);
  try {
    const inner = memberPath(target.member ?? "", shown);
    const children = archiveChildren(archive.entries, inner);
    const isFile = archive.entries.some((entry) => entry.path === inner && !entry.directory && !entry.unsafe);
    if (!isFile && children) return listArchive(shown, inner, children, archive.entries, range);
    if (!isFile) {
      const unsafe = archive.entries.find((entry) => entry.unsafe && entry.path === inner);
      if (unsafe) throw new ArchiveError("unsafe-path", `${shown}: the entry ${JSON.stringify(unsafe.unsafe)} leads outside the archive and is never read.`);
      throw new ArchiveError("not-found", `${shown} has no ${inner}. Read ${shown} to list what it holds.`);
    }
    const bytes = await archive.read(inner);
    const label = `${shown}:${inner}`;
    const document = documentKind(inner);
    if (document && !target.raw) return documentResult(label, target.path, document, await convertDocument(bytes, document, label), range);
    const image = detectImage(bytes.subarray(0, 64));
    if (image) {
      if (bytes.length > READ_MAX_IMAGE_BYTES) return errorResult(`${label}: image too large to attach (limit ${formatBytes(READ_MAX_IMAGE_BYTES)}).`);
      return { content: [{ type: "text", text: `${label}: ${image.toUpperCase()} image, ${formatBytes(bytes.length)}` }, { type: "image", data: Buffer.from(bytes).toString("base64"), mimeType: IMAGE_MIME[image] }] };
    }
    if (looksBinary(bytes.subarray(0, 8192))) {
      return textResult(`${label} is a binary file (${describeBinary(bytes.subarray(0, 8192))}, ${formatBytes(bytes.length)}); its bytes are not shown.`);
    }
    return readTextOf(label, new TextDecoder().decode(bytes), range);
  } finally {
    await archive.close();
  }
}

function listArchive(shown: string, dir: string, children: { name: string; size: number; directory: boolean }[], entries: { unsafe?: string }[], range: ReadRange): ToolResult<ReadDetails> {
  const first = range.offset ?? 1;
  const limit = range.limit ?? READ_DIR_DEFAULT_LIMIT;
  const page = children.slice(first - 1, first - 1 + limit);
  const label = `${shown}:${dir ? `${dir}/` : ""}`;
  if (children.length === 0) return textResult(`${label} is an empty archive folder.`, { kind: "archive", entries: 0 });
  let text = `${label} (archive folder, ${plural(children.length, "entry", "entries")})\n${page.map((child) => (child.directory ? `${child.name}/` : `${child.name} (${formatBytes(child.size)})`)).join("\n")}`;
  if (first - 1 + page.length < children.length) text += `\n\n[Showing entries ${first}-${first - 1 + page.length} of ${children.length}. Use offset=${first + page.length} to see more.]`;
  const unsafe = entries.filter((entry) => entry.unsafe).map((entry) => JSON.stringify(entry.unsafe));
  if (unsafe.length > 0 && dir === "") text += `\n\n[${plural(unsafe.length, "entry leads", "entries lead")} outside the archive and cannot be read: ${unsafe.slice(0, 5).join(", ")}${unsafe.length > 5 ? ", …" : ""}]`;
  text += `\n\nRead a file inside with ${shown}:<path>.`;
  return textResult(text, { kind: "archive", entries: children.length });
}
