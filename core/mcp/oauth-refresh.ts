import { type OAuthClientProvider, auth, extractWWWAuthenticateParams } from "@modelcontextprotocol/sdk/client/auth.js";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";

function bearerOf(headers: Headers): string | undefined {
  return /^Bearer\s+(.+)$/i.exec(headers.get("authorization") ?? "")?.[1];
}

/**
 * The fetch of one remote server's transport: a request refused with 401 for an access token
 * that expired is renewed here, once per expired token, and sent again with the new one.
 *
 * Left to the SDK, every request that met the 401 would refresh on its own, so parallel tool calls
 * on an expired token would each post a refresh; a server that rotates refresh tokens honours the
 * first and answers the next with invalid_grant (or the next refreshes again with the token the
 * first just got), on which the SDK drops the tokens just obtained and the user must log in
 * again. Here the later requests wait for the first one's renewal and use its token.
 *
 * When the renewal gets no token (the refresh token was refused), the 401 goes back to the SDK,
 * whose own handling then asks for a login.
 */
export function renewingFetch(provider: OAuthClientProvider, serverUrl: URL, base: FetchLike = fetch): FetchLike {
  const renewals = new Map<string, Promise<string | undefined>>();
  const renew = (expired: string, refusal: Response): Promise<string | undefined> => {
    let renewal = renewals.get(expired);
    if (!renewal) {
      const { resourceMetadataUrl, scope } = extractWWWAuthenticateParams(refusal);
      renewal = auth(provider, { serverUrl, resourceMetadataUrl, scope, fetchFn: base })
        .then(async (result) => (result === "AUTHORIZED" ? (await provider.tokens())?.access_token : undefined))
        .catch(() => undefined)
        .then((token) => {
          // Tried again by a later request: the failure may have been the network's.
          if (token === undefined) renewals.delete(expired);
          return token;
        });
      renewals.set(expired, renewal);
    }
    return renewal;
  };
  return async (url, init) => {
    const response = await base(url, init);
    const headers = new Headers(init?.headers);
    const sent = bearerOf(headers);
    if (response.status !== 401 || sent === undefined) return response;
    const renewed = await renew(sent, response);
    if (renewed === undefined || renewed === sent) return response;
    await response.body?.cancel().catch(() => {});
    headers.set("authorization", `Bearer ${renewed}`);
    return base(url, { ...init, headers });
  };
}
