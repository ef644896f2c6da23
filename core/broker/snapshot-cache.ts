import { readFileSync } from "node:fs";
import { writeFileAtomic } from "../fs/atomic-write.ts";
import type { BrokerClientConfig } from "./config.ts";
import type { Snapshot } from "./wire.ts";

const MAGIC = new TextEncoder().encode("OMPSNAP1");
const IV_BYTES = 12;
const encoder = new TextEncoder();

/**
 * The broker's last snapshot on disk, so omp starts and works while the broker is down. It holds
 * access tokens and API keys, so it is AES-256-GCM encrypted with a key derived from the broker
 * token (SHA-256) and bound to the broker URL (associated data): another token or URL cannot read
 * it, and a changed byte fails authentication and the file is ignored. Web Crypto rather than
 * node:crypto: this is on the start-up path of every client, and node:crypto costs milliseconds to load.
 */
export async function writeSnapshotCache(config: BrokerClientConfig, snapshot: Snapshot): Promise<void> {
  if (!config.cachePath) return;
  const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
  const sealed = new Uint8Array(await crypto.subtle.encrypt({ name: "AES-GCM", iv, additionalData: encoder.encode(config.url) }, await keyOf(config.token), encoder.encode(JSON.stringify(snapshot))));
  const file = new Uint8Array(MAGIC.length + IV_BYTES + sealed.length);
  file.set(MAGIC, 0);
  file.set(iv, MAGIC.length);
  file.set(sealed, MAGIC.length + IV_BYTES);
  writeFileAtomic(config.cachePath, file, { mode: 0o600, forceMode: true });
}

/** The cached snapshot if it decrypts, authenticates and is younger than the TTL (by the broker's clock); otherwise undefined. */
export async function readSnapshotCache(config: BrokerClientConfig, now = Date.now()): Promise<Snapshot | undefined> {
  if (!config.cachePath) return undefined;
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(config.cachePath);
  } catch {
    return undefined;
  }
  if (bytes.length < MAGIC.length + IV_BYTES + 16 || !MAGIC.every((byte, i) => bytes[i] === byte)) return undefined;
  try {
    const iv = bytes.slice(MAGIC.length, MAGIC.length + IV_BYTES);
    const plain = await crypto.subtle.decrypt({ name: "AES-GCM", iv, additionalData: encoder.encode(config.url) }, await keyOf(config.token), bytes.slice(MAGIC.length + IV_BYTES));
    const snapshot = JSON.parse(new TextDecoder().decode(plain)) as Snapshot;
    if (typeof snapshot.generatedAt !== "number" || !Array.isArray(snapshot.credentials)) return undefined;
    return now - snapshot.generatedAt <= config.cacheTtlMs ? snapshot : undefined;
  } catch {
    return undefined;
  }
}

function keyOf(token: string): Promise<CryptoKey> {
  const digest = new Uint8Array(new Bun.CryptoHasher("sha256").update(token).digest());
  return crypto.subtle.importKey("raw", digest, "AES-GCM", false, ["encrypt", "decrypt"]);
}
