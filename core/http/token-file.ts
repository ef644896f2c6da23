import { readFileSync } from "node:fs";
import { dirname } from "node:path";
import { writeFileAtomic } from "../fs/atomic-write.ts";
import { lockPathBeside, withFileLockSync } from "../fs/file-lock.ts";
import { OmpError } from "../errors/omp-error.ts";
import { displayPath, ensurePrivateDir } from "../paths.ts";

/**
 * A service's bearer token in a file of its own (the broker's, the gateway's): 256 random bits,
 * 0600 in a 0700 dir, made on first use.
 */

/** The saved token; undefined when the file is missing or empty. */
export function readTokenFile(path: string): string | undefined {
  try {
    const token = readFileSync(path, "utf8").trim();
    return token === "" ? undefined : token;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new OmpError(`cannot read the token file ${displayPath(path)}: ${(error as Error).message}`, { cause: error });
  }
}

export interface EnsureTokenOptions {
  /** Replaces the saved token, which revokes the old one. */
  regenerate?: boolean;
  /** Put before the random part, so a token says what it is for (`omp-gw-`). */
  prefix?: string;
  /** Who else may be making it, for the message when the lock is held too long. */
  holder: string;
}

/** The saved token, or a new one saved; `created` says which. */
export function ensureTokenFile(path: string, options: EnsureTokenOptions): { token: string; created: boolean } {
  ensurePrivateDir(dirname(path));
  // Locked: two services starting together must end up with one token, not each its own.
  return withFileLockSync(lockPathBeside(path), { waitMs: 5000, what: options.holder }, () => {
    const existing = options.regenerate ? undefined : readTokenFile(path);
    if (existing) return { token: existing, created: false };
    const token = `${options.prefix ?? ""}${randomToken()}`;
    writeFileAtomic(path, `${token}\n`, { mode: 0o600, forceMode: true });
    return { token, created: true };
  });
}

/**
 * 32 random bytes in base64url, never starting with `-`: a token is pasted into command lines
 * (`omp config set auth.broker.token <token>`), where a leading dash reads as an option (1 in 64 did).
 */
function randomToken(): string {
  for (;;) {
    const token = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url");
    if (!token.startsWith("-")) return token;
  }
}
