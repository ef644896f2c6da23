import { timingSafeEqual } from "node:crypto";

/** The token a request presents: `Authorization: Bearer …`, else (for Anthropic clients) `x-api-key` where `apiKeyHeader` allows it. */
export function presentedToken(headers: Headers, options: { apiKeyHeader?: boolean } = {}): string | undefined {
  const auth = headers.get("authorization");
  if (auth) {
    const match = /^Bearer\s+(.+)$/i.exec(auth.trim());
    if (match) return match[1]!.trim();
  }
  return options.apiKeyHeader ? headers.get("x-api-key")?.trim() || undefined : undefined;
}

/** Compares digests, so neither the length nor any prefix of the token leaks through timing. */
export function tokenMatches(presented: string | undefined, expected: string): boolean {
  if (presented === undefined) return false;
  const a = new Bun.CryptoHasher("sha256").update(presented).digest();
  const b = new Bun.CryptoHasher("sha256").update(expected).digest();
  return timingSafeEqual(a, b);
}
