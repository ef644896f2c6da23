import { OmpError, describeError } from "../../errors/omp-error.ts";
import type { OAuthCredential } from "../credential.ts";
import { newState, pkcePair } from "./pkce.ts";
import { type OAuthProvider, callbackPortOf, endpointsOf } from "./providers.ts";
import { OAuthError, credentialFrom, postToken } from "./token-endpoint.ts";
import { copilotExchange, withEmail, withProject } from "./refresh.ts";

/** How a login talks to the person: where to go, what to type, and (without a browser) the code they paste. */
export interface LoginIO {
  /** Open this URL (the authorization page, or the device verification page with `userCode`). */
  showUrl(url: string, instructions: string, userCode?: string): void;
  progress(message: string): void;
  /**
   * The paste-the-code fallback: resolves with what the user pasted (a code, `code#state` or the
   * whole redirect URL), or never when nothing can be pasted.
   */
  pasted(): Promise<string>;
  env?: Record<string, string | undefined>;
  /** How long to wait for the browser or the device approval. */
  timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 5 * 60_000;

export function login(provider: OAuthProvider, io: LoginIO): Promise<OAuthCredential> {
  return provider.flow === "device" ? deviceLogin(provider, io) : pkceLogin(provider, io);
}

const SUCCESS_PAGE = "<!doctype html><meta charset=utf-8><title>omp</title><p>Logged in. You can close this tab and return to the terminal.</p>";

/**
 * Authorization code with PKCE: the browser comes back to a loopback server on the port the
 * provider registered; on a machine where that port is taken or the browser runs elsewhere, the
 * user pastes the redirect URL (or code) instead. Whichever arrives first wins.
 */
async function pkceLogin(provider: OAuthProvider, io: LoginIO): Promise<OAuthCredential> {
  const { verifier, challenge } = pkcePair();
  const state = newState();
  const port = callbackPortOf(provider, io.env)!;
  const redirectUri = `http://localhost:${port}${provider.callbackPath}`;
  const url = new URL(endpointsOf(provider, io.env).authorizeUrl);
  const params: Record<string, string> = {
    ...provider.authorizeParams,
    client_id: provider.clientId,
    response_type: "code",
    redirect_uri: redirectUri,
    scope: provider.scopes,
    code_challenge: challenge,
    code_challenge_method: "S256",
    state,
  };
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);

  let resolveCode!: (code: string) => void;
  let rejectCode!: (error: Error) => void;
  const codePromise = new Promise<string>((resolve, reject) => {
    resolveCode = resolve;
    rejectCode = reject;
  });
  let server: ReturnType<typeof Bun.serve> | undefined;
  try {
    server = Bun.serve({
      hostname: "127.0.0.1",
      port,
      fetch(request) {
        const incoming = new URL(request.url);
        if (incoming.pathname !== provider.callbackPath) return new Response("not found", { status: 404 });
        const error = incoming.searchParams.get("error");
        if (error) {
          rejectCode(new OmpError(`${provider.name} refused the login: ${error}${incoming.searchParams.get("error_description") ? ` (${incoming.searchParams.get("error_description")})` : ""}`));
          return new Response("Login failed; see the terminal.", { status: 400 });
        }
        const code = incoming.searchParams.get("code");
        if (!code || incoming.searchParams.get("state") !== state) return new Response("Missing code or wrong state.", { status: 400 });
        resolveCode(code);
        return new Response(SUCCESS_PAGE, { headers: { "content-type": "text/html; charset=utf-8" } });
      },
    });
  } catch (error) {
    io.progress(`port ${port} is not free (${describeError(error)}): paste the redirect URL when the browser shows it`);
  }
  try {
    io.showUrl(url.toString(), server ? "Open this URL to log in; the browser comes back here by itself. Without a browser on this machine, paste the URL it ends on." : "Open this URL to log in, then paste the URL the browser ends on (or the code it shows).");
    io.pasted().then(
      (text) => {
        const parsed = parsePasted(text);
        if (!parsed.code) return;
        if (parsed.state !== undefined && parsed.state !== state) rejectCode(new OmpError("the pasted code belongs to another login attempt (state mismatch); start again"));
        else resolveCode(parsed.code);
      },
      () => {},
    );
    const code = await withTimeout(codePromise, io.timeoutMs ?? DEFAULT_TIMEOUT_MS, `${provider.name}: no login within the time allowed; run the command again`);
    io.progress("exchanging the authorization code");
    const extra: Record<string, string> = provider.id === "anthropic" ? { state } : {};
    const credential = credentialFrom(provider, await postToken(provider, { grant_type: "authorization_code", code, redirect_uri: redirectUri, code_verifier: verifier, ...extra }, io.env));
    if (provider.id === "google-gemini-cli") io.progress("finding the Code Assist project");
    return await withProject(provider, await withEmail(provider, credential, io.env), io.env);
  } finally {
    server?.stop(true);
  }
}

/** `code`, `code#state` (Anthropic's page shows this), a query string, or the whole redirect URL. */
export function parsePasted(text: string): { code?: string; state?: string } {
  const value = text.trim();
  if (value === "") return {};
  try {
    const url = new URL(value);
    return { code: url.searchParams.get("code") ?? undefined, state: url.searchParams.get("state") ?? undefined };
  } catch {
    // Not a URL.
  }
  if (value.includes("code=")) {
    const params = new URLSearchParams(value.replace(/^\?/, ""));
    return { code: params.get("code") ?? undefined, state: params.get("state") ?? undefined };
  }
  const [code, state] = value.split("#", 2);
  return { code, state };
}

interface DeviceCodeAnswer {
  device_code: string;
  user_code: string;
  verification_uri: string;
  interval?: number;
  expires_in?: number;
}

/** RFC 8628 device authorization: show a code, poll until the user approved it on another device. */
async function deviceLogin(provider: OAuthProvider, io: LoginIO): Promise<OAuthCredential> {
  const endpoints = endpointsOf(provider, io.env);
  let answer: DeviceCodeAnswer;
  try {
    const response = await fetch(endpoints.deviceUrl!, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify({ client_id: provider.clientId, scope: provider.scopes }),
      signal: AbortSignal.timeout(30_000),
    });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    answer = (await response.json()) as DeviceCodeAnswer;
  } catch (error) {
    throw new OmpError(`${provider.name}: could not start the device login (${describeError(error)})`);
  }
  io.showUrl(answer.verification_uri, `Open this URL and enter the code ${answer.user_code}`, answer.user_code);
  let intervalMs = Math.max(answer.interval ?? 5, 0) * 1000;
  const deadline = Date.now() + Math.min((answer.expires_in ?? 900) * 1000, io.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  while (Date.now() < deadline) {
    await Bun.sleep(Math.max(intervalMs, 100));
    try {
      const body = await postToken(provider, { device_code: answer.device_code, grant_type: "urn:ietf:params:oauth:grant-type:device_code" }, io.env);
      if (typeof body.access_token !== "string") continue;
      // For Copilot the GitHub token is the long-lived "refresh" and the Copilot token the access.
      if (provider.id === "github-copilot") return copilotExchange(provider, body.access_token, io.env);
      return credentialFrom(provider, body);
    } catch (error) {
      if (!(error instanceof OAuthError)) throw error;
      if (error.code === "authorization_pending") continue;
      if (error.code === "slow_down") {
        intervalMs += 5000;
        continue;
      }
      throw new OmpError(error.message);
    }
  }
  throw new OmpError(`${provider.name}: the device code expired before it was approved; run the command again`);
}

function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([promise, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new OmpError(message)), ms)))]).finally(() => clearTimeout(timer));
}
