import { ArchiveError } from "../archives/archive-error.ts";

/** Each page's text, in order (unpdf: PDF.js built for servers, imported on the first PDF). */
export async function pdfPages(bytes: Uint8Array, name: string): Promise<string[]> {
  const { extractText, getDocumentProxy } = await import("unpdf");
  let document: Awaited<ReturnType<typeof getDocumentProxy>>;
  try {
    // PDF.js takes ownership of the buffer it is given; the caller's stays intact.
    document = await getDocumentProxy(new Uint8Array(bytes), { isEvalSupported: false, stopAtErrors: false, verbosity: 0 } as never);
  } catch (error) {
    const why = (error as Error).message ?? String(error);
    if (/password/i.test(why)) throw new ArchiveError("unsupported", `${name} is password-protected; omp cannot read it.`, { cause: error });
    throw new ArchiveError("corrupt", `${name} is not a readable PDF (${why}); it may be damaged or truncated.`, { cause: error });
  }
  const { text } = await extractText(document, { mergePages: false });
  return text.map((page) => page.replace(/[ \t]+\n/g, "\n").trim());
}
