/** AWS's binary event-stream framing as Bedrock writes it, for the stand-in and tests. */
const PRELUDE = 12;

function crc32(bytes: Uint8Array): number {
  return Bun.hash.crc32(bytes) >>> 0;
}

/** Encodes one message with string headers (type 7): Bedrock's side of the framing core/ai/cloud/event-stream.ts reads. */
export function encodeEventStreamMessage(headers: Record<string, string>, payload: Uint8Array): Uint8Array {
  const encoder = new TextEncoder();
  const parts: Uint8Array[] = [];
  for (const [name, value] of Object.entries(headers)) {
    const n = encoder.encode(name);
    const v = encoder.encode(value);
    const header = new Uint8Array(1 + n.length + 1 + 2 + v.length);
    header[0] = n.length;
    header.set(n, 1);
    header[1 + n.length] = 7;
    new DataView(header.buffer).setUint16(2 + n.length, v.length);
    header.set(v, 4 + n.length);
    parts.push(header);
  }
  const headersLength = parts.reduce((sum, part) => sum + part.length, 0);
  const total = PRELUDE + headersLength + payload.length + 4;
  const out = new Uint8Array(total);
  const view = new DataView(out.buffer);
  view.setUint32(0, total);
  view.setUint32(4, headersLength);
  view.setUint32(8, crc32(out.subarray(0, 8)));
  let at = PRELUDE;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  out.set(payload, at);
  view.setUint32(total - 4, crc32(out.subarray(0, total - 4)));
  return out;
}
