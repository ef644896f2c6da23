/**
 * AWS's binary event-stream framing (application/vnd.amazon.eventstream), as Bedrock streams
 * replies: each message is a 12-byte prelude (total length, headers length, CRC32 of the two),
 * typed headers, the payload, and a CRC32 of the whole message. Both checksums are verified.
 */
export interface EventStreamMessage {
  headers: Record<string, string | number | boolean>;
  payload: Uint8Array;
}

/** AWS caps a message at 16 MiB; anything larger is a broken stream, not a reply. */
const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;
const PRELUDE = 12;

export class EventStreamError extends Error {}

function crc32(bytes: Uint8Array): number {
  return Bun.hash.crc32(bytes) >>> 0;
}

function readHeaders(bytes: Uint8Array): Record<string, string | number | boolean> {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const decoder = new TextDecoder();
  const headers: Record<string, string | number | boolean> = {};
  let at = 0;
  while (at < bytes.length) {
    const nameLength = view.getUint8(at);
    const name = decoder.decode(bytes.subarray(at + 1, at + 1 + nameLength));
    at += 1 + nameLength;
    const type = view.getUint8(at++);
    switch (type) {
      case 0:
      case 1:
        headers[name] = type === 0;
        break;
      case 2:
        headers[name] = view.getInt8(at);
        at += 1;
        break;
      case 3:
        headers[name] = view.getInt16(at);
        at += 2;
        break;
      case 4:
        headers[name] = view.getInt32(at);
        at += 4;
        break;
      case 5:
      case 8:
        headers[name] = Number(view.getBigInt64(at));
        at += 8;
        break;
      case 6:
      case 7: {
        const length = view.getUint16(at);
        const value = bytes.subarray(at + 2, at + 2 + length);
        headers[name] = type === 7 ? decoder.decode(value) : Buffer.from(value).toString("base64");
        at += 2 + length;
        break;
      }
      case 9:
        headers[name] = Buffer.from(bytes.subarray(at, at + 16)).toString("hex");
        at += 16;
        break;
      default:
        throw new EventStreamError(`unknown event-stream header type ${type}`);
    }
  }
  return headers;
}

/** Splits a body into messages as they arrive; a body that ends inside a message throws. */
export async function* readEventStream(body: ReadableStream<Uint8Array>): AsyncGenerator<EventStreamMessage> {
  const reader = body.getReader();
  let buffer: Uint8Array = new Uint8Array(0);
  try {
    while (true) {
      while (buffer.length >= PRELUDE) {
        const view = new DataView(buffer.buffer, buffer.byteOffset, buffer.byteLength);
        const total = view.getUint32(0);
        const headersLength = view.getUint32(4);
        if (crc32(buffer.subarray(0, 8)) !== view.getUint32(8)) throw new EventStreamError("event-stream prelude checksum mismatch");
        if (total > MAX_MESSAGE_BYTES || total < PRELUDE + 4 + headersLength) throw new EventStreamError(`event-stream message of ${total} bytes is malformed`);
        if (buffer.length < total) break;
        const message = buffer.subarray(0, total);
        if (crc32(message.subarray(0, total - 4)) !== view.getUint32(total - 4)) throw new EventStreamError("event-stream message checksum mismatch");
        yield {
          headers: readHeaders(message.subarray(PRELUDE, PRELUDE + headersLength)),
          payload: message.slice(PRELUDE + headersLength, total - 4),
        };
        buffer = buffer.subarray(total);
      }
      const { done, value } = await reader.read();
      if (done) break;
      const joined = new Uint8Array(buffer.length + value.length);
      joined.set(buffer);
      joined.set(value, buffer.length);
      buffer = joined;
    }
    if (buffer.length > 0) throw new EventStreamError("the event stream ended inside a message");
  } finally {
    reader.releaseLock();
  }
}
