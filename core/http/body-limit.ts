/** Request bodies are read with a limit: a declared length over it is refused before a byte is read, a chunked one as soon as it passes it. */
export class BodyTooLarge extends Error {
  constructor(
    readonly limit: number,
    readonly declared?: number,
  ) {
    super(`the request body is larger than the limit of ${formatBytes(limit)}${declared !== undefined ? ` (${formatBytes(declared)} declared)` : ""}`);
  }
}

export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024 * 1024) return `${+(bytes / 1024 / 1024 / 1024).toFixed(1)} GB`;
  if (bytes >= 1024 * 1024) return `${+(bytes / 1024 / 1024).toFixed(1)} MB`;
  if (bytes >= 1024) return `${+(bytes / 1024).toFixed(1)} KB`;
  return `${bytes} bytes`;
}

/** `8MB`, `512k`, `1g`, `1048576`: a size from a flag or setting; undefined when unreadable. */
export function parseSize(text: string): number | undefined {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([kmg]?)i?b?\s*$/i.exec(text);
  if (!match) return undefined;
  const unit = { "": 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 }[match[2]!.toLowerCase() as "" | "k" | "m" | "g"];
  const bytes = Math.floor(Number(match[1]) * unit);
  return bytes > 0 ? bytes : undefined;
}

/** The declared length when it is already over the limit: answered at once, without reading the body. */
export function declaredTooLarge(headers: Headers, limit: number): BodyTooLarge | undefined {
  const length = Number(headers.get("content-length") ?? "");
  return Number.isFinite(length) && length > limit ? new BodyTooLarge(limit, length) : undefined;
}

/** The body as text (a request's or a response's), read chunk by chunk and given up (throwing BodyTooLarge) once it passes the limit. */
export async function readLimitedText(request: Request | Response, limit: number): Promise<string> {
  const declared = declaredTooLarge(request.headers, limit);
  if (declared) throw declared;
  // A declared length within the limit is all the server reads: taken whole, the fast way.
  if (request.headers.has("content-length")) return await request.text();
  if (!request.body) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = request.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      reader.cancel().catch(() => {});
      throw new BodyTooLarge(limit);
    }
    chunks.push(value);
  }
  return new TextDecoder().decode(Buffer.concat(chunks));
}
