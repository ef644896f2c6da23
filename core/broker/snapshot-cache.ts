import { readFileSync, statSync, unlinkSync } from "node:fs";
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

/** What reading the cache found: the snapshot when usable, else why not (undefined: no cache, or an expired one). */
export interface CacheRead {
  snapshot?: Snapshot;
  problem?: string;
}

/**
 * The cached snapshot if it decrypts, authenticates and is younger than the TTL (by the broker's
 * clock). A file others can read is refused, untouched, with the chmod that fixes it; a damaged
 * one (or one sealed for another token or URL) is said to be so and deleted, so the next snapshot
 * from the broker replaces it.
 */
export async function readSnapshotCache(config: BrokerClientConfig, now = Date.now()): Promise<CacheRead> {
  const path = config.cachePath;
  if (!path) return {};
  let bytes: Uint8Array;
  try {
    const mode = statSync(path).mode & 0o777;
    if ((mode & 0o077) !== 0) {
      return { problem: `the auth broker snapshot cache ${path} is readable by other users (mode ${mode.toString(8).padStart(4, "0")}), so it was not used; fix it with: chmod 600 ${path}` };
    }
    bytes = readFileSync(path);
  } catch {
    return {};
  }
  const discard = (why: string): CacheRead => {
    try {
      unlinkSync(path);
    } catch {
      // Gone already: nothing to discard.
    }
    return { problem: `the auth broker snapshot cache ${path} was damaged (${why}) and was discarded; it is written again from the broker's next snapshot` };
  };
  if (bytes.length < MAGIC.length + IV_BYTES + 16 || !MAGIC.every((byte, i) => bytes[i] === byte)) return discard("not an omp snapshot cache");
  let plain: ArrayBuffer;
  try {
    const iv = bytes.slice(MAGIC.length, MAGIC.length + IV_BYTES);
    plain = await crypto.subtle.decrypt({ name: "AES-GCM", iv, additionalData: encoder.encode(config.url) }, await keyOf(config.token), bytes.slice(MAGIC.length + IV_BYTES));
  } catch {
    return discard("it does not decrypt with this broker's URL and token");
  }
  let snapshot: Snapshot;
  try {
    snapshot = JSON.parse(new TextDecoder().decode(plain)) as Snapshot;
  } catch {
    return discard("its content is not a snapshot");
  }
  if (typeof snapshot?.generatedAt !== "number" || !Array.isArray(snapshot.credentials)) return discard("its content is not a snapshot");
  return now - snapshot.generatedAt <= config.cacheTtlMs ? { snapshot } : {};
}

function keyOf(token: string): Promise<CryptoKey> {
  const digest = new Uint8Array(new Bun.CryptoHasher("sha256").update(token).digest());
  return crypto.subtle.importKey("raw", digest, "AES-GCM", false, ["encrypt", "decrypt"]);
}
