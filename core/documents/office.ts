import { ArchiveError } from "../archives/archive-error.ts";
import { zipMembers } from "../archives/zip.ts";
import { htmlFragmentToMarkdown } from "../web/html-markdown.ts";
import { drawingParagraphs } from "./xml-text.ts";

/** A Word document as Markdown: mammoth maps its styles (headings, lists, tables) to HTML, Turndown writes it. */
export async function docxMarkdown(bytes: Uint8Array, name: string): Promise<string> {
  // mammoth unpacks the whole archive itself, believing every header: each member is unpacked
  // here first within the archive limits, so a zip bomb is refused before mammoth sees it.
  const unreadable = (error: unknown) => new ArchiveError("corrupt", `${name} is not a readable Word (.docx) document (${(error as Error).message}).`, { cause: error });
  try {
    await (await zipMembers(bytes, name)).checkAll();
  } catch (error) {
    if (error instanceof ArchiveError && error.kind !== "corrupt") throw error;
    throw unreadable(error);
  }
  const mammoth = await import("mammoth");
  let html: string;
  try {
    html = (await mammoth.convertToHtml({ buffer: Buffer.from(bytes) })).value;
  } catch (error) {
    throw unreadable(error);
  }
  return htmlFragmentToMarkdown(html);
}

/** A presentation as text, slide by slide in the deck's order, with speaker notes. */
export async function pptxMarkdown(bytes: Uint8Array, name: string): Promise<string> {
  const zip = await zipMembers(bytes, name);
  const slideNumber = (path: string) => Number(/(\d+)\.xml$/.exec(path)?.[1] ?? 0);
  const slides = zip.names.filter((path) => /^ppt\/slides\/slide\d+\.xml$/.test(path)).sort((a, b) => slideNumber(a) - slideNumber(b));
  if (slides.length === 0) throw new ArchiveError("corrupt", `${name} has no slides; it is not a PowerPoint (.pptx) deck or it is damaged.`);
  const sections: string[] = [];
  for (const slide of slides) {
    const number = slideNumber(slide);
    const xml = new TextDecoder().decode(await zip.read(slide));
    const [title, ...body] = drawingParagraphs(xml);
    let section = `## Slide ${number}${title ? `: ${title}` : ""}\n\n${body.join("\n\n")}`.trimEnd();
    const notes = await zip.read(`ppt/notesSlides/notesSlide${number}.xml`);
    const noteText = notes ? drawingParagraphs(new TextDecoder().decode(notes)).filter((line) => !/^\d+$/.test(line.trim())) : [];
    if (noteText.length > 0) section += `\n\nNotes: ${noteText.join(" ")}`;
    sections.push(section);
  }
  return sections.join("\n\n");
}
