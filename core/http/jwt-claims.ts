// Apart from auth/oauth/pkce.ts: providers read claims on the start-up path, where node:crypto must not load.

/** The claims of a JWT, unverified: only for reading the account it names from a token the provider just issued. */
export function jwtClaims(token: string | undefined): Record<string, unknown> {
  const payload = token?.split(".")[1];
  if (!payload) return {};
  try {
    const claims: unknown = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
    return claims !== null && typeof claims === "object" ? (claims as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
