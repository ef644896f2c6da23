import { join } from "node:path";
import { ensureTokenFile } from "../http/token-file.ts";
import { configRoot } from "../paths.ts";

/** `~/.omp/auth-gateway.token`: the bearer every client of the gateway presents. */
export function tokenPath(home?: string): string {
  return join(configRoot(home), "auth-gateway.token");
}

/** The saved token, or a new one (`omp-gw-` and 256 random bits); `regenerate` replaces it and so revokes the old one. */
export function ensureToken(options: { regenerate?: boolean } = {}): { token: string; created: boolean } {
  return ensureTokenFile(tokenPath(), { regenerate: options.regenerate, prefix: "omp-gw-", holder: "another omp auth-gateway" });
}

/** A short, non-reversible label for a client token in usage rows and logs. */
export function tokenLabel(token: string | undefined): string {
  if (token === undefined) return "anonymous";
  return `tok_${new Bun.CryptoHasher("sha256").update(token).digest("hex").slice(0, 12)}`;
}
