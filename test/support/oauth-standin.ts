// A stand-in for the subscription providers' authorization servers on loopback, answering as they
// do: the authorize redirect to the client's loopback callback, the code exchange with PKCE checked,
// refresh with rotation (an old refresh token is invalid_grant), GitHub's device-code polling and
// Copilot's token exchange. Which provider is asking is told by its client id.
import { createHash } from "node:crypto";
import { CodeAssist } from "./standin/subscriptions.ts";
import { type UsageAnswers, type UsageRequest, defaultUsageAnswers, usageAnswer } from "./usage-standin.ts";

export type OAuthStyle = "anthropic" | "openai-codex" | "github-copilot" | "google-gemini-cli";

const CLIENTS: Record<string, OAuthStyle> = {
  "9d1c250a-e61b-44d9-88ed-5944d1962f5e": "anthropic",
  app_EMoamEEZ73f0CkXaXp7hrann: "openai-codex",
  "Iv1.b507a08c87ecfe98": "github-copilot",
  "681255809395-oo8ft2oprdrnp9e3aqf6av3hmdib135j.apps.googleusercontent.com": "google-gemini-cli",
};

export interface TokenRequest {
  grant: string;
  style: OAuthStyle;
  contentType: string;
  fields: Record<string, string>;
  at: number;
}

export interface OAuthStandin {
  url: string;
  tokenRequests: TokenRequest[];
  /** Access tokens issued, newest last. */
  issued: { style: OAuthStyle; access: string; refresh: string; email: string }[];
  /** Lifetime of the access tokens it issues. */
  expiresIn: number;
  /** Delay before answering a refresh (to make refreshes overlap). */
  refreshDelayMs: number;
  /** Refreshes received but never answered (a provider that hangs while its client is killed). */
  hangRefreshes: boolean;
  /** The email put in the account of each login, by style; a new value makes a new account. */
  email: string;
  /** Polls of a device code answered authorization_pending before it is approved. */
  pendingPolls: number;
  /** Copilot token exchanges answered. */
  exchanges: number;
  /** The `endpoints.api` Copilot's token answer names (the plan's API host), when set. */
  copilotApi?: string;
  /**
   * Google's Code Assist, where a Gemini CLI login finds its project: served here too, so that a
   * login needs no provider stand-in (tests that run Code Assist models point
   * GOOGLE_GEMINI_CLI_BASE_URL at the provider stand-in's own instead).
   */
  codeAssist: CodeAssist;
  /** What the subscriptions' usage endpoints (served here too) answer, and the requests they had. */
  usage: UsageAnswers;
  usageRequests: UsageRequest[];
  revoke(refresh: string): void;
  /** Every environment variable that points omp's logins (and usage lookups) here. */
  env(): Record<string, string>;
  close(): Promise<void>;
}

const random = () => crypto.randomUUID().replaceAll("-", "");
const USAGE_PATHS = new Set(["/api/oauth/usage", "/backend-api/wham/usage", "/copilot_internal/user", "/v1internal:retrieveUserQuota"]);

function jwt(claims: Record<string, unknown>): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
  return `${part({ alg: "none", typ: "JWT" })}.${part(claims)}.sig`;
}

export async function startOAuthStandin(): Promise<OAuthStandin> {
  const codes = new Map<string, { challenge: string; redirectUri: string; style: OAuthStyle }>();
  const liveRefresh = new Map<string, OAuthStyle>();
  const devices = new Map<string, number>();
  const githubTokens = new Set<string>();
  const codeAssist = new CodeAssist();
  // An account that used Gemini CLI before: loadCodeAssist names its project at once.
  codeAssist.onboarded = true;
  const state: Omit<OAuthStandin, "url" | "env" | "close" | "revoke" | "codeAssist"> = {
    tokenRequests: [],
    issued: [],
    expiresIn: 3600,
    refreshDelayMs: 0,
    hangRefreshes: false,
    email: "user@example.com",
    pendingPolls: 1,
    exchanges: 0,
    usage: defaultUsageAnswers(),
    usageRequests: [],
  };

  const issue = (style: OAuthStyle) => {
    const refresh = `rt_${style}_${random()}`;
    const access =
      style === "anthropic"
        ? `sk-ant-oat01-${random()}`
        : style === "openai-codex"
          ? jwt({ email: state.email, "https://api.openai.com/auth": { chatgpt_account_id: `acct_${state.email}` }, nonce: random() })
          : `ya29.${random()}`;
    liveRefresh.set(refresh, style);
    state.issued.push({ style, access, refresh, email: state.email });
    const body: Record<string, unknown> = { access_token: access, refresh_token: refresh, expires_in: state.expiresIn, token_type: "Bearer" };
    if (style === "anthropic") body.account = { uuid: `uuid-${state.email}`, email_address: state.email };
    if (style === "openai-codex") body.id_token = jwt({ email: state.email });
    return body;
  };

  const oauthError = (status: number, error: string, description: string) => Response.json({ error, error_description: description }, { status });

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0,
    async fetch(req) {
      const url = new URL(req.url);
      if (USAGE_PATHS.has(url.pathname)) {
        const text = await req.text();
        const request = { method: req.method, path: url.pathname, headers: Object.fromEntries([...req.headers].map(([name, value]) => [name.toLowerCase(), value])), body: text ? JSON.parse(text) : undefined };
        state.usageRequests.push(request);
        return usageAnswer(request, state.usage, state.issued, githubTokens, codeAssist.project) ?? new Response("not found", { status: 404 });
      }
      if (url.pathname.startsWith("/v1internal")) {
        const text = await req.text();
        const headers = Object.fromEntries([...req.headers].map(([name, value]) => [name.toLowerCase(), value]));
        const request = { method: req.method, path: url.pathname, query: Object.fromEntries(url.searchParams), headers, body: text ? JSON.parse(text) : undefined, receivedAt: Date.now() };
        return codeAssist.answer(request) ?? new Response("not found", { status: 404 });
      }
      if (req.method === "GET" && url.pathname === "/authorize") {
        const style = CLIENTS[url.searchParams.get("client_id") ?? ""];
        const redirect = url.searchParams.get("redirect_uri");
        if (!style || !redirect || url.searchParams.get("code_challenge_method") !== "S256" || !url.searchParams.get("code_challenge")) {
          return new Response("bad authorize request", { status: 400 });
        }
        const code = `code_${random()}`;
        codes.set(code, { challenge: url.searchParams.get("code_challenge")!, redirectUri: redirect, style });
        const back = new URL(redirect);
        back.searchParams.set("code", code);
        back.searchParams.set("state", url.searchParams.get("state") ?? "");
        return Response.redirect(back.toString(), 302);
      }
      if (req.method === "GET" && url.pathname === "/userinfo") {
        const token = req.headers.get("authorization")?.replace(/^Bearer /, "") ?? "";
        const issued = state.issued.find((entry) => entry.access === token && entry.style === "google-gemini-cli");
        if (!issued) return Response.json({ error: { code: 401, message: "Request had invalid authentication credentials.", status: "UNAUTHENTICATED" } }, { status: 401 });
        return Response.json({ id: "1234567890", email: issued.email, verified_email: true });
      }
      if (req.method === "POST" && url.pathname === "/device/code") {
        const body = (await req.json()) as { client_id?: string };
        if (CLIENTS[body.client_id ?? ""] !== "github-copilot") return oauthError(400, "invalid_client", "unknown client");
        const device = `dev_${random()}`;
        devices.set(device, 0);
        return Response.json({ device_code: device, user_code: "WDJB-MJHT", verification_uri: `${url.origin}/device`, expires_in: 900, interval: 0 });
      }
      if (req.method === "GET" && url.pathname === "/copilot/token") {
        const token = req.headers.get("authorization")?.replace(/^token /, "") ?? "";
        if (!githubTokens.has(token)) return Response.json({ message: "Bad credentials" }, { status: 401 });
        state.exchanges++;
        const endpoints = state.copilotApi ? { endpoints: { api: state.copilotApi, "origin-tracker": "https://origin-tracker.example" } } : {};
        return Response.json({ token: `tid=${random()};exp=1;sku=copilot`, expires_at: Math.floor(Date.now() / 1000) + state.expiresIn, refresh_in: 1500, ...endpoints });
      }
      if (req.method === "POST" && url.pathname === "/token") {
        const contentType = req.headers.get("content-type") ?? "";
        const text = await req.text();
        const fields: Record<string, string> = contentType.includes("json") ? JSON.parse(text) : Object.fromEntries(new URLSearchParams(text));
        const style = CLIENTS[fields.client_id ?? ""];
        const grant = fields.grant_type ?? "";
        if (!style) return oauthError(401, "invalid_client", "unknown client");
        state.tokenRequests.push({ grant, style, contentType, fields, at: Date.now() });
        // Anthropic takes JSON, OpenAI and Google forms; GitHub either.
        const json = contentType.includes("json");
        if ((style === "anthropic" && !json) || ((style === "openai-codex" || style === "google-gemini-cli") && json)) return oauthError(400, "invalid_request", "wrong body format");
        if (grant === "authorization_code") {
          const pending = codes.get(fields.code ?? "");
          codes.delete(fields.code ?? "");
          if (!pending) return oauthError(400, "invalid_grant", "unknown or used code");
          const challenge = createHash("sha256").update(fields.code_verifier ?? "").digest("base64url");
          if (challenge !== pending.challenge) return oauthError(400, "invalid_grant", "PKCE verification failed");
          if (fields.redirect_uri !== pending.redirectUri) return oauthError(400, "invalid_grant", "redirect_uri mismatch");
          return Response.json(issue(style));
        }
        if (grant === "refresh_token") {
          if (state.hangRefreshes) return new Promise<Response>(() => {});
          if (state.refreshDelayMs > 0) await Bun.sleep(state.refreshDelayMs);
          const owner = liveRefresh.get(fields.refresh_token ?? "");
          if (owner !== style) return oauthError(400, "invalid_grant", "refresh token is invalid, expired, revoked or already used");
          liveRefresh.delete(fields.refresh_token!);
          const body = issue(style);
          // Google keeps the refresh token: its answer to a refresh has none.
          if (style === "google-gemini-cli") {
            liveRefresh.delete(body.refresh_token as string);
            liveRefresh.set(fields.refresh_token!, style);
            delete body.refresh_token;
          }
          return Response.json(body);
        }
        if (grant === "urn:ietf:params:oauth:grant-type:device_code") {
          const polls = devices.get(fields.device_code ?? "");
          if (polls === undefined) return Response.json({ error: "expired_token" });
          devices.set(fields.device_code!, polls + 1);
          // GitHub answers 200 with an error field while it waits.
          if (polls < state.pendingPolls) return Response.json({ error: "authorization_pending", error_description: "waiting" });
          devices.delete(fields.device_code!);
          const token = `gho_${random()}`;
          githubTokens.add(token);
          return Response.json({ access_token: token, token_type: "bearer", scope: "read:user" });
        }
        return oauthError(400, "unsupported_grant_type", grant);
      }
      return new Response("not found", { status: 404 });
    },
  });

  const url = `http://127.0.0.1:${server.port}`;
  return Object.assign(state, {
    url,
    codeAssist,
    revoke: (refresh: string) => void liveRefresh.delete(refresh),
    env() {
      const env: Record<string, string> = {};
      for (const prefix of ["ANTHROPIC", "OPENAI_CODEX", "GITHUB_COPILOT", "GOOGLE_GEMINI_CLI"]) {
        env[`OMP_OAUTH_${prefix}_AUTHORIZE_URL`] = `${url}/authorize`;
        env[`OMP_OAUTH_${prefix}_TOKEN_URL`] = `${url}/token`;
      }
      env.OMP_OAUTH_GITHUB_COPILOT_DEVICE_URL = `${url}/device/code`;
      env.OMP_OAUTH_GITHUB_COPILOT_EXCHANGE_URL = `${url}/copilot/token`;
      env.GOOGLE_GEMINI_CLI_BASE_URL = url;
      env.OMP_OAUTH_GOOGLE_GEMINI_CLI_USERINFO_URL = `${url}/userinfo`;
      env.OMP_OAUTH_ANTHROPIC_USAGE_URL = `${url}/api/oauth/usage`;
      env.OMP_OAUTH_OPENAI_CODEX_USAGE_URL = `${url}/backend-api/wham/usage`;
      env.OMP_OAUTH_GITHUB_COPILOT_USAGE_URL = `${url}/copilot_internal/user`;
      env.OMP_OAUTH_GOOGLE_GEMINI_CLI_USAGE_URL = `${url}/v1internal:retrieveUserQuota`;
      return env;
    },
    close: () => server.stop(true),
  });
}

/** The scripted browser: follows the authorize URL's redirect to omp's loopback callback and returns the page it shows. */
export async function browse(authorizeUrl: string): Promise<{ status: number; text: string; callback: string }> {
  const first = await fetch(authorizeUrl, { redirect: "manual" });
  const callback = first.headers.get("location");
  if (first.status !== 302 || !callback) throw new Error(`authorize answered ${first.status}: ${await first.text()}`);
  const page = await fetch(callback);
  return { status: page.status, text: await page.text(), callback };
}
