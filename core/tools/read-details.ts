import type { ArchiveErrorKind } from "../archives/archive-error.ts";
import type { DocumentKind } from "../documents/convert.ts";
import type { WebErrorKind } from "../web/web-error.ts";
import type { ImageFormat } from "./file-kind.ts";

/** What read (and web_fetch) results carry besides the text, by what was read; never sent to the model. */

/** A page of lines, as read pages any text: files, archive members, the text of documents and web pages. */
export interface PageDetails {
  kind: "text";
  path: string;
  startLine: number;
  endLine: number;
  totalLines: number;
  truncated: boolean;
}

/** The page's fields where a document or web page was paged (absent when paging failed before a page). */
type Paged = Partial<Omit<PageDetails, "kind">>;

export type UrlDetails =
  | (Paged & { kind: "url"; url: string; finalUrl: string; contentType: string; cached: boolean })
  | { kind: "url"; url: string; finalUrl: string; contentType: string; image: ImageFormat }
  | { kind: "url"; url: string; error: WebErrorKind }
  | { kind: "url"; url: string; status: number };

export type ReadDetails =
  | PageDetails
  | { kind: "image"; path: string; format: ImageFormat; bytes: number; width?: number; height?: number }
  /** Not shown: `description` says what it is (an ELF executable, a zip archive); an MCP resource names its `mimeType`. */
  | { kind: "binary"; path: string; bytes: number; description?: string; mimeType?: string }
  | { kind: "sqlite"; path: string }
  | { kind: "error"; path: string; error: ArchiveErrorKind }
  | { kind: "directory"; path: string; entries: number; startEntry: number; endEntry: number }
  | { kind: "archive"; entries: number }
  | (Paged & { kind: "document"; path: string; format: DocumentKind; pages?: number; images: number })
  | UrlDetails;
