import { timingSafeEqual } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomic } from "../fs/atomic-write.ts";
import { configRoot, displayPath } from "../paths.ts";
import { OmpError } from "../errors/omp-error.ts";

/** `~/.omp/auth-gateway.token`: the bearer every client of the gateway presents. */
export function tokenPath(home?: string): string {
  return join(configRoot(home), "auth-gateway.token");
}

export function readToken(path: string = tokenPath()): string | undefined {
  try {
    const token = readFileSync(path, "utf8").trim();
    return token === "" ? undefined : token;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new OmpError(`cannot read the gateway token ${displayPath(path)}: ${(error as Error).message}`, { cause: error });
  }
}

/** The saved token, or a new one (256 random bits) saved 0600; `regenerate` replaces it and so revokes the old one. */
export function ensureToken(options: { regenerate?: boolean; path?: string } = {}): { token: string; created: boolean } {
  const path = options.path ?? tokenPath();
  const existing = options.regenerate ? undefined : readToken(path);
  if (existing) return { token: existing, created: false };
  const token = `omp-gw-${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url")}`;
  writeFileAtomic(path, `${token}\n`, { mode: 0o600, forceMode: true });
  return { token, created: true };
}

/** The token a request presents: `Authorization: Bearer …` (OpenAI clients) or `x-api-key` (Anthropic clients). */
export function presentedToken(headers: Headers): string | undefined {
  const auth = headers.get("authorization");
  if (auth) {
    const match = /^Bearer\s+(.+)$/i.exec(auth.trim());
    if (match) return match[1]!.trim();
  }
  return headers.get("x-api-key")?.trim() || undefined;
}

/** Compares digests, so neither the length nor any prefix of the token leaks through timing. */
export function tokenMatches(presented: string | undefined, expected: string): boolean {
  if (presented === undefined) return false;
  const a = new Bun.CryptoHasher("sha256").update(presented).digest();
  const b = new Bun.CryptoHasher("sha256").update(expected).digest();
  return timingSafeEqual(a, b);
}

/** A short, non-reversible label for a client token in usage rows and logs. */
export function tokenLabel(token: string | undefined): string {
  if (token === undefined) return "anonymous";
  return `tok_${new Bun.CryptoHasher("sha256").update(token).digest("hex").slice(0, 12)}`;
}
