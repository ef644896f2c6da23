import { extname } from "node:path";
import { ArchiveError } from "../archives/archive-error.ts";
import { formatBytes } from "../format-bytes.ts";

export type DocumentKind = "pdf" | "docx" | "pptx" | "xlsx" | "csv" | "tsv" | "epub" | "ipynb";

/** The largest file of each kind omp converts: beyond these, conversion costs too much memory and time. */
export const DOCUMENT_LIMITS: Record<DocumentKind, number> = {
  pdf: 50 * 1024 * 1024,
  docx: 25 * 1024 * 1024,
  pptx: 50 * 1024 * 1024,
  xlsx: 20 * 1024 * 1024,
  csv: 20 * 1024 * 1024,
  tsv: 20 * 1024 * 1024,
  epub: 50 * 1024 * 1024,
  ipynb: 20 * 1024 * 1024,
};

export interface DocumentImage {
  label: string;
  mimeType: string;
  /** Base64. */
  data: string;
}

export interface DocumentContent {
  text: string;
  /** A PDF's text page by page: a `:A-B` selector picks pages. */
  pages?: string[];
  images: DocumentImage[];
}

const BY_EXTENSION: Record<string, DocumentKind> = {
  ".pdf": "pdf",
  ".docx": "docx",
  ".pptx": "pptx",
  ".xlsx": "xlsx",
  ".csv": "csv",
  ".tsv": "tsv",
  ".epub": "epub",
  ".ipynb": "ipynb",
};

export function documentKind(path: string): DocumentKind | undefined {
  return BY_EXTENSION[extname(path).toLowerCase()];
}

const BY_TYPE: Record<string, DocumentKind> = {
  "application/pdf": "pdf",
  "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "docx",
  "application/vnd.openxmlformats-officedocument.presentationml.presentation": "pptx",
  "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": "xlsx",
  "text/csv": "csv",
  "text/tab-separated-values": "tsv",
  "application/epub+zip": "epub",
  "application/x-ipynb+json": "ipynb",
};

export function documentKindOfType(contentType: string): DocumentKind | undefined {
  return BY_TYPE[contentType.split(";")[0]!.trim().toLowerCase()];
}

/** Throws a clear error when `size` is past the kind's limit, before anything is read. */
export function checkDocumentSize(kind: DocumentKind, size: number, name: string): void {
  const limit = DOCUMENT_LIMITS[kind];
  if (size > limit) {
    throw new ArchiveError(
      "too-large",
      `${name} is ${formatBytes(size)}, over the ${formatBytes(limit)} limit for .${kind} files, so it is not converted. Split it, or convert it with a command-line tool in bash (pdftotext, pandoc, ...) and read the result.`,
    );
  }
}

/** The document's text (Markdown where the format has structure); each format's library is imported here, on first use. */
export async function convertDocument(bytes: Uint8Array, kind: DocumentKind, name: string): Promise<DocumentContent> {
  checkDocumentSize(kind, bytes.length, name);
  switch (kind) {
    case "pdf": {
      const pages = await (await import("./pdf.ts")).pdfPages(bytes, name);
      return { text: pages.map((page, i) => pageSection(i + 1, page)).join("\n\n"), pages, images: [] };
    }
    case "docx":
      return { text: await (await import("./office.ts")).docxMarkdown(bytes, name), images: [] };
    case "pptx":
      return { text: await (await import("./office.ts")).pptxMarkdown(bytes, name), images: [] };
    case "xlsx":
      return { text: await (await import("./sheets.ts")).xlsxMarkdown(bytes, name), images: [] };
    case "csv":
    case "tsv":
      return { text: (await import("./sheets.ts")).csvMarkdown(new TextDecoder().decode(bytes), kind === "tsv"), images: [] };
    case "epub":
      return { text: await (await import("./epub.ts")).epubMarkdown(bytes, name), images: [] };
    case "ipynb":
      return (await import("./notebook.ts")).notebookText(bytes, name);
  }
}

export function pageSection(number: number, text: string): string {
  return `## Page ${number}\n\n${text || "(no text on this page; it may be a scanned image)"}`;
}
