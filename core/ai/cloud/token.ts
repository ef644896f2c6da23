/** An OAuth access token a cloud minted, and where it came from (never the secret behind it). */
export interface AccessToken {
  accessToken: string;
  expiresAt: number;
  source: string;
}

/** Refreshed this long before it expires, so a request never carries a token about to lapse. */
const EXPIRY_MARGIN_MS = 5 * 60_000;
const MAX_ANSWER_BYTES = 64 * 1024;

/** Keeps the last token `mint` made until shortly before it expires; a failed mint is tried again next time. */
export function tokenCache<T extends AccessToken>(mint: () => Promise<T>): () => Promise<T> {
  let cached: Promise<T> | undefined;
  return async () => {
    const current = await cached?.catch(() => undefined);
    if (current && current.expiresAt - EXPIRY_MARGIN_MS > Date.now()) return current;
    cached = mint();
    return cached;
  };
}

/** A form POST to an OAuth token endpoint (RFC 6749 §4), answered with `access_token` and `expires_in`. */
export async function exchangeForToken(uri: string, form: Record<string, string>, source: string): Promise<AccessToken> {
  const response = await fetch(uri, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(form).toString(),
    signal: AbortSignal.timeout(10_000),
  });
  const text = (await response.text()).slice(0, MAX_ANSWER_BYTES);
  if (!response.ok) throw new Error(`${source}: the token endpoint refused the credentials (${response.status}: ${text.slice(0, 300)})`);
  let body: { access_token?: unknown; expires_in?: unknown };
  try {
    body = JSON.parse(text);
  } catch {
    throw new Error(`${source}: the token endpoint answered something that is not JSON`);
  }
  if (typeof body.access_token !== "string") throw new Error(`${source}: the token endpoint's answer had no access_token`);
  return { accessToken: body.access_token, expiresAt: Date.now() + (Number(body.expires_in) || 3600) * 1000, source };
}
