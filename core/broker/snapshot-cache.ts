import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { writeFileAtomic } from "../fs/atomic-write.ts";
import type { BrokerClientConfig } from "./config.ts";
import type { Snapshot } from "./wire.ts";

const MAGIC = Buffer.from("OMPSNAP1");

/**
 * The broker's last snapshot on disk, so omp starts and works while the broker is down. It holds
 * access tokens and API keys, so it is AES-256-GCM encrypted with a key derived from the broker
 * token and bound to the broker URL (associated data): another token or URL cannot read it, and a
 * changed byte fails authentication and the file is ignored.
 */
export function writeSnapshotCache(config: BrokerClientConfig, snapshot: Snapshot): void {
  if (!config.cachePath) return;
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", keyOf(config.token), iv);
  cipher.setAAD(Buffer.from(config.url));
  const body = Buffer.concat([cipher.update(JSON.stringify(snapshot), "utf8"), cipher.final()]);
  writeFileAtomic(config.cachePath, Buffer.concat([MAGIC, iv, cipher.getAuthTag(), body]), { mode: 0o600, forceMode: true });
}

/** The cached snapshot if it decrypts, authenticates and is younger than the TTL (by the broker's clock); otherwise undefined. */
export function readSnapshotCache(config: BrokerClientConfig, now = Date.now()): Snapshot | undefined {
  if (!config.cachePath) return undefined;
  let bytes: Buffer;
  try {
    bytes = readFileSync(config.cachePath);
  } catch {
    return undefined;
  }
  if (bytes.length < MAGIC.length + 28 || !bytes.subarray(0, MAGIC.length).equals(MAGIC)) return undefined;
  const iv = bytes.subarray(MAGIC.length, MAGIC.length + 12);
  const tag = bytes.subarray(MAGIC.length + 12, MAGIC.length + 28);
  try {
    const decipher = createDecipheriv("aes-256-gcm", keyOf(config.token), iv);
    decipher.setAAD(Buffer.from(config.url));
    decipher.setAuthTag(tag);
    const text = Buffer.concat([decipher.update(bytes.subarray(MAGIC.length + 28)), decipher.final()]).toString("utf8");
    const snapshot = JSON.parse(text) as Snapshot;
    if (typeof snapshot.generatedAt !== "number" || !Array.isArray(snapshot.credentials)) return undefined;
    return now - snapshot.generatedAt <= config.cacheTtlMs ? snapshot : undefined;
  } catch {
    return undefined;
  }
}

const keyOf = (token: string) => createHash("sha256").update(token).digest();
