import type { z } from "zod";
import { open, seal } from "./crypto.ts";

/** A message as it travels: JSON, sealed with the room's key (crypto.ts). */
export async function sealJson(key: CryptoKey, roomId: string, message: unknown): Promise<Uint8Array> {
  return seal(key, roomId, new TextEncoder().encode(JSON.stringify(message)));
}

/** The message in a sealed frame, or undefined when it does not open or is not one `schema` accepts: a peer's garbage is dropped, never acted on. */
export async function openJson<T>(key: CryptoKey, roomId: string, frame: Uint8Array, schema: z.ZodType<T>): Promise<T | undefined> {
  try {
    const parsed = schema.safeParse(JSON.parse(new TextDecoder().decode(await open(key, roomId, frame))));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
