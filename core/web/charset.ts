/** How many bytes of an HTML page are searched for a `<meta>` charset (the HTML standard says 1024; pages are sloppier). */
const META_SNIFF_BYTES = 4096;

/**
 * Decodes a fetched body: a byte-order mark wins, then the Content-Type header's charset, then an
 * HTML `<meta>` declaration; undeclared text that is not valid UTF-8 is read as windows-1252, as
 * browsers do.
 */
export function decodeBody(bytes: Uint8Array, contentType: string, html: boolean): string {
  const bom = bomCharset(bytes);
  if (bom) return new TextDecoder(bom as "utf-8").decode(bytes);
  const declared = headerCharset(contentType) ?? (html ? metaCharset(bytes) : undefined);
  const decoder = declared ? decoderFor(declared) : undefined;
  if (decoder) return decoder.decode(bytes);
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return new TextDecoder("windows-1252").decode(bytes);
  }
}

function bomCharset(bytes: Uint8Array): string | undefined {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return "utf-8";
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return "utf-16le";
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return "utf-16be";
  return undefined;
}

function headerCharset(contentType: string): string | undefined {
  return /charset\s*=\s*["']?([\w.:-]+)/i.exec(contentType)?.[1];
}

function metaCharset(bytes: Uint8Array): string | undefined {
  const head = new TextDecoder("latin1").decode(bytes.subarray(0, META_SNIFF_BYTES));
  return /<meta[^>]+charset\s*=\s*["']?\s*([\w.:-]+)/i.exec(head)?.[1];
}

function decoderFor(label: string): TextDecoder | undefined {
  try {
    return new TextDecoder(label.toLowerCase() as "utf-8");
  } catch {
    return undefined;
  }
}
