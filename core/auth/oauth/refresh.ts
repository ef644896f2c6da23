import { COPILOT_HEADERS } from "../../ai/providers-table.ts";
import type { OAuthCredential } from "../credential.ts";
import { codeAssistProject } from "./code-assist.ts";
import { type OAuthProvider, endpointsOf, oauthProvider } from "./providers.ts";
import { OAuthError, credentialFrom, postToken } from "./token-endpoint.ts";
import { describeError } from "../../errors/omp-error.ts";

/**
 * One refresh at the provider: a new access token (and, where the provider rotates them, a new
 * refresh token) for `credential`. Throws OAuthError, `definitive` when the login is dead.
 */
export async function refreshAtProvider(providerId: string, credential: OAuthCredential, env?: Record<string, string | undefined>): Promise<OAuthCredential> {
  const provider = oauthProvider(providerId);
  if (!provider) throw new OAuthError(`${providerId} has no OAuth refresh`, true);
  const keep = { email: credential.email, accountId: credential.accountId, projectId: credential.projectId, enterpriseUrl: credential.enterpriseUrl, apiBase: credential.apiBase };
  const next =
    provider.id === "github-copilot"
      ? await copilotExchange(provider, credential.refresh, env)
      : credentialFrom(provider, await postToken(provider, { grant_type: "refresh_token", refresh_token: credential.refresh }, env), credential.refresh);
  for (const [field, value] of Object.entries(keep)) if (value !== undefined && next[field as keyof typeof keep] === undefined) next[field as keyof typeof keep] = value;
  // A login imported without its Code Assist project gets it now, as requests need it; the new
  // tokens are kept even when Code Assist cannot say yet.
  return withProject(provider, next, env).catch(() => next);
}

/** A Gemini CLI credential with the Code Assist project its requests name; other logins as they are. */
export async function withProject(provider: OAuthProvider, credential: OAuthCredential, env?: Record<string, string | undefined>): Promise<OAuthCredential> {
  if (provider.id !== "google-gemini-cli" || credential.projectId) return credential;
  return { ...credential, projectId: await codeAssistProject(credential.access, env) };
}

/**
 * The login's email from the provider's userinfo endpoint when its token answer named no one
 * (Google's, without the openid scope): it tells accounts apart, so each gets its own vault row.
 * Only a label: without it the login still works.
 */
export async function withEmail(provider: OAuthProvider, credential: OAuthCredential, env?: Record<string, string | undefined>): Promise<OAuthCredential> {
  const url = endpointsOf(provider, env).userinfoUrl;
  if (credential.email || !url) return credential;
  try {
    const response = await fetch(url, { headers: { authorization: `Bearer ${credential.access}`, accept: "application/json" }, signal: AbortSignal.timeout(10_000) });
    const email = response.ok ? ((await response.json()) as { email?: unknown }).email : undefined;
    return typeof email === "string" && email !== "" ? { ...credential, email } : credential;
  } catch {
    return credential;
  }
}

/** GitHub token → short-lived Copilot API token (what chat requests carry). */
export async function copilotExchange(provider: OAuthProvider, githubToken: string, env?: Record<string, string | undefined>): Promise<OAuthCredential> {
  let response: Response;
  try {
    response = await fetch(endpointsOf(provider, env).exchangeUrl!, {
      headers: { ...COPILOT_HEADERS, authorization: `token ${githubToken}`, accept: "application/json" },
      signal: AbortSignal.timeout(30_000),
    });
  } catch (error) {
    throw new OAuthError(`${provider.name}: the Copilot token endpoint could not be reached (${describeError(error)})`, false);
  }
  if (!response.ok) throw new OAuthError(`${provider.name}: the Copilot token endpoint answered ${response.status}`, response.status === 401 || response.status === 403);
  const body = (await response.json()) as { token?: unknown; expires_at?: unknown; endpoints?: { api?: unknown } };
  if (typeof body.token !== "string") throw new OAuthError(`${provider.name}: the Copilot token answer has no token`, false);
  const expires = typeof body.expires_at === "number" ? body.expires_at * 1000 : Date.now() + 25 * 60_000;
  const credential: OAuthCredential = { type: "oauth", access: body.token, refresh: githubToken, expires };
  // Business and enterprise plans are served from their own hosts; the token says which.
  const api = body.endpoints?.api;
  if (typeof api === "string" && /^https?:\/\//.test(api)) credential.apiBase = api.replace(/\/+$/, "");
  return credential;
}
