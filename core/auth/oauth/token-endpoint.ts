import { describeError } from "../../errors/omp-error.ts";
import type { OAuthCredential } from "../credential.ts";
import { jwtClaims } from "../../http/jwt-claims.ts";
import { type OAuthProvider, endpointsOf } from "./providers.ts";

const TIMEOUT_MS = 30_000;

/**
 * A failed call to a token endpoint. `definitive` failures (invalid_grant, a revoked or unknown
 * token, 401/403) will fail the same way again: the credential is disabled with `message` as the
 * reason. Anything else (a timeout, a refused connection, a 5xx) is retried later.
 */
export class OAuthError extends Error {
  override readonly name = "OAuthError";
  constructor(
    message: string,
    readonly definitive: boolean,
    /** The OAuth `error` code, when the server sent one (`authorization_pending` while a device code waits). */
    readonly code?: string,
  ) {
    super(message);
  }
}

const DEFINITIVE_CODES = new Set(["invalid_grant", "invalid_token", "invalid_client", "unauthorized_client", "access_denied", "expired_token", "refresh_token_reused"]);

export interface TokenResponse {
  access_token?: string;
  refresh_token?: string;
  expires_in?: number;
  id_token?: string;
  error?: string;
  error_description?: string;
  [field: string]: unknown;
}

/** POSTs to the provider's token endpoint in the body format it takes and returns the parsed answer. */
export async function postToken(provider: OAuthProvider, params: Record<string, string>, env?: Record<string, string | undefined>): Promise<TokenResponse> {
  const url = endpointsOf(provider, env).tokenUrl;
  const fields = { client_id: provider.clientId, ...(provider.clientSecret ? { client_secret: provider.clientSecret } : {}), ...params };
  const json = provider.tokenBody === "json";
  let response: Response;
  try {
    response = await fetch(url, {
      method: "POST",
      headers: { "content-type": json ? "application/json" : "application/x-www-form-urlencoded", accept: "application/json" },
      body: json ? JSON.stringify(fields) : new URLSearchParams(fields),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch (error) {
    throw new OAuthError(`${provider.name}: the token endpoint could not be reached (${describeError(error)})`, false);
  }
  const text = await response.text();
  let body: TokenResponse = {};
  try {
    body = JSON.parse(text);
  } catch {
    // GitHub answers form-encoded unless asked otherwise; others send HTML on a gateway error.
    if (text.includes("=")) body = Object.fromEntries(new URLSearchParams(text)) as TokenResponse;
  }
  if (response.ok && !body.error) return body;
  // The description is the provider's words about the grant; it never echoes the token itself.
  const code = typeof body.error === "string" ? body.error : (body.error as { type?: string } | undefined)?.type;
  const detail = [code, typeof body.error_description === "string" ? body.error_description : undefined].filter(Boolean).join(": ");
  const definitive = (code !== undefined && DEFINITIVE_CODES.has(code)) || response.status === 401 || response.status === 403;
  throw new OAuthError(`${provider.name}: the token endpoint answered ${response.status}${detail ? ` (${detail})` : ""}`, definitive, code);
}

/** An access/refresh pair from a token answer, with the account it belongs to when the answer says. */
export function credentialFrom(provider: OAuthProvider, body: TokenResponse, previousRefresh?: string): OAuthCredential {
  if (typeof body.access_token !== "string" || body.access_token === "") throw new OAuthError(`${provider.name}: the token answer has no access_token`, false);
  const refresh = typeof body.refresh_token === "string" && body.refresh_token !== "" ? body.refresh_token : previousRefresh;
  if (refresh === undefined) throw new OAuthError(`${provider.name}: the token answer has no refresh_token`, false);
  const expiresIn = typeof body.expires_in === "number" ? body.expires_in : 3600;
  const credential: OAuthCredential = { type: "oauth", access: body.access_token, refresh, expires: Date.now() + expiresIn * 1000 };
  const account = body.account as { email_address?: unknown; uuid?: unknown } | undefined;
  const idClaims = jwtClaims(body.id_token);
  const accessClaims = jwtClaims(body.access_token);
  const email = account?.email_address ?? idClaims.email ?? accessClaims.email;
  if (typeof email === "string") credential.email = email;
  const openaiAuth = (accessClaims["https://api.openai.com/auth"] ?? idClaims["https://api.openai.com/auth"]) as { chatgpt_account_id?: unknown } | undefined;
  const accountId = openaiAuth?.chatgpt_account_id ?? account?.uuid;
  if (typeof accountId === "string") credential.accountId = accountId;
  return credential;
}
