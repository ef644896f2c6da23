import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";

/** A token endpoint's answer, kept so that every caller can be given its own Response of it. */
interface Answer {
  status: number;
  statusText: string;
  headers: [string, string][];
  body: ArrayBuffer;
}

function refreshTokenOf(init: RequestInit | undefined): string | undefined {
  const body = init?.body;
  if (init?.method !== "POST" || !(body instanceof URLSearchParams)) return undefined;
  return body.get("grant_type") === "refresh_token" ? (body.get("refresh_token") ?? undefined) : undefined;
}

/**
 * The fetch of one remote server's transport, making a refresh token's exchange happen once. The
 * SDK refreshes inside each request that got a 401, so parallel tool calls on an expired token
 * would each post the same refresh token; a server that rotates refresh tokens honours the first
 * and answers the second with invalid_grant, on which the SDK drops the tokens just obtained and
 * the user would have to log in again. Every exchange of a refresh token after the first gets the
 * first one's answer.
 */
export function refreshOnce(base: FetchLike = fetch): FetchLike {
  const answers = new Map<string, Promise<Answer>>();
  return (url, init) => {
    const token = refreshTokenOf(init);
    if (token === undefined) return base(url, init);
    let answer = answers.get(token);
    if (!answer) {
      answer = base(url, init).then(async (response) => ({
        status: response.status,
        statusText: response.statusText,
        headers: [...response.headers],
        body: await response.arrayBuffer(),
      }));
      answers.set(token, answer);
      // A request that never reached the server may be tried again.
      answer.catch(() => answers.delete(token));
    }
    return answer.then((a) => new Response(a.body.slice(0), { status: a.status, statusText: a.statusText, headers: a.headers }));
  };
}
