/**
 * End-to-end sealing of collab payloads: AES-256-GCM with the room key, a fresh 96-bit IV per frame,
 * the room id as associated data (a frame cannot be replayed into another room). The relay sees only
 * `iv || ciphertext+tag`. WebCrypto, so the web guest uses the very same code.
 */
const IV_BYTES = 12;

export class CollabCryptoError extends Error {
  readonly kind = "collab_crypto";
}

export async function importRoomKey(raw: Uint8Array<ArrayBuffer>): Promise<CryptoKey> {
  return crypto.subtle.importKey("raw", raw, { name: "AES-GCM" }, false, ["encrypt", "decrypt"]);
}

export async function seal(key: CryptoKey, roomId: string, plaintext: Uint8Array<ArrayBuffer>): Promise<Uint8Array<ArrayBuffer>> {
  const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
  const sealed = new Uint8Array(await crypto.subtle.encrypt({ name: "AES-GCM", iv, additionalData: new TextEncoder().encode(roomId) }, key, plaintext));
  const frame = new Uint8Array(IV_BYTES + sealed.length);
  frame.set(iv);
  frame.set(sealed, IV_BYTES);
  return frame;
}

/** The plaintext of a sealed frame; a wrong key, another room's frame or a changed byte is refused. */
export async function open(key: CryptoKey, roomId: string, frame: Uint8Array): Promise<Uint8Array> {
  if (frame.length < IV_BYTES + 16) throw new CollabCryptoError("a collab frame is too short to be sealed");
  try {
    const plain = await crypto.subtle.decrypt({ name: "AES-GCM", iv: frame.slice(0, IV_BYTES), additionalData: new TextEncoder().encode(roomId) }, key, frame.slice(IV_BYTES));
    return new Uint8Array(plain);
  } catch (cause) {
    throw new CollabCryptoError("a collab frame did not open with this room's key (wrong link, or changed on the way)", { cause });
  }
}

/** Constant-time comparison for the write token. */
export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}
