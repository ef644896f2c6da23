import { posix } from "node:path";
import { ArchiveError } from "../archives/archive-error.ts";
import { zipMembers } from "../archives/zip.ts";
import { htmlFragmentToMarkdown } from "../web/html-markdown.ts";
import { decodeXml } from "./xml-text.ts";

/** An e-book as Markdown, its chapters in reading (spine) order. */
export async function epubMarkdown(bytes: Uint8Array, name: string): Promise<string> {
  const zip = await zipMembers(bytes, name);
  const text = async (member: string) => {
    const data = await zip.read(member);
    return data ? new TextDecoder().decode(data) : undefined;
  };
  const container = await text("META-INF/container.xml");
  const opfPath = container && /full-path="([^"]+)"/.exec(container)?.[1];
  const opf = opfPath ? await text(opfPath) : undefined;
  if (!opfPath || !opf) throw new ArchiveError("corrupt", `${name} is not a readable EPUB (no META-INF/container.xml or package document).`);
  const base = posix.dirname(opfPath);
  const manifest = new Map<string, string>();
  for (const item of opf.matchAll(/<item\b[^>]*>/g)) {
    const id = /\bid="([^"]+)"/.exec(item[0])?.[1];
    const href = /\bhref="([^"]+)"/.exec(item[0])?.[1];
    if (id && href) manifest.set(id, posix.normalize(posix.join(base, decodeURIComponent(decodeXml(href)))));
  }
  const title = /<dc:title[^>]*>([\s\S]*?)<\/dc:title>/.exec(opf)?.[1];
  const chapters: string[] = title ? [`# ${decodeXml(title).trim()}`] : [];
  for (const ref of opf.matchAll(/<itemref\b[^>]*\bidref="([^"]+)"/g)) {
    const path = manifest.get(ref[1]!);
    const html = path ? await text(path) : undefined;
    if (!html) continue;
    const body = /<body[^>]*>([\s\S]*)<\/body>/i.exec(html)?.[1] ?? html;
    const markdown = await htmlFragmentToMarkdown(body);
    if (markdown) chapters.push(markdown);
  }
  return chapters.join("\n\n");
}
