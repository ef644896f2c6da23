import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { writeFileAtomic } from "../fs/atomic-write.ts";
import { lockPathBeside, withFileLockSync } from "../fs/file-lock.ts";
import { configRoot, ensurePrivateDir } from "../paths.ts";

/** `~/.omp/auth-broker.token`: the bearer every broker endpoint but /v1/healthz wants. */
export const brokerTokenPath = () => join(configRoot(), "auth-broker.token");

export function readBrokerToken(path = brokerTokenPath()): string | undefined {
  try {
    const token = readFileSync(path, "utf8").trim();
    return token === "" ? undefined : token;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

/** The broker's token, made on first use (32 random bytes, 0600 in a 0700 dir), or a new one with `regenerate`. */
export function ensureBrokerToken(regenerate = false, path = brokerTokenPath()): string {
  ensurePrivateDir(dirname(path));
  // Locked: two brokers starting together must end up with one token, not each its own.
  return withFileLockSync(lockPathBeside(path), { waitMs: 5000, what: "another omp auth-broker" }, () => {
    const existing = regenerate ? undefined : readBrokerToken(path);
    if (existing) return existing;
    const token = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url");
    writeFileAtomic(path, `${token}\n`, { mode: 0o600, forceMode: true });
    return token;
  });
}
