/**
 * The subscription logins omp knows, with the endpoints, client ids, scopes and loopback ports
 * their official clients registered (Claude Code, Codex CLI, GitHub Copilot, Gemini CLI). Every
 * URL and the callback port can be overridden from the environment
 * (`OMP_OAUTH_<PROVIDER>_<AUTHORIZE|TOKEN|DEVICE|EXCHANGE|USERINFO|USAGE>_URL`, `..._CALLBACK_PORT`) for private
 * deployments and tests.
 */

export type OAuthProviderId = "anthropic" | "openai-codex" | "github-copilot" | "google-gemini-cli";

interface Endpoints {
  authorizeUrl: string;
  tokenUrl: string;
  /** Device-code flow: where the user and device codes come from. */
  deviceUrl?: string;
  /** GitHub Copilot: where the GitHub token is exchanged for a short-lived Copilot token. */
  exchangeUrl?: string;
  /** Google: who the login is (its token answer names no one without the openid scope). */
  userinfoUrl?: string;
  /** The subscription's limits and how much of them is used (`omp usage`). */
  usageUrl?: string;
}

export interface OAuthProvider {
  id: OAuthProviderId;
  name: string;
  flow: "pkce" | "device";
  clientId: string;
  /** Installed-app "secret" Google publishes in Gemini CLI; not confidential, but required. */
  clientSecret?: string;
  scopes: string;
  callbackPort?: number;
  callbackPath?: string;
  /** How the token endpoint wants its body. */
  tokenBody: "json" | "form";
  authorizeParams?: Record<string, string>;
  defaults: Endpoints;
}

export const OAUTH_PROVIDERS: readonly OAuthProvider[] = [
  {
    id: "anthropic",
    name: "Anthropic (Claude Pro/Max)",
    flow: "pkce",
    clientId: "9d1c250a-e61b-44d9-88ed-5944d1962f5e",
    scopes: "org:create_api_key user:profile user:inference",
    callbackPort: 54545,
    callbackPath: "/callback",
    tokenBody: "json",
    authorizeParams: { code: "true" },
    defaults: { authorizeUrl: "https://claude.ai/oauth/authorize", tokenUrl: "https://console.anthropic.com/v1/oauth/token", usageUrl: "https://api.anthropic.com/api/oauth/usage" },
  },
  {
    id: "openai-codex",
    name: "OpenAI Codex (ChatGPT Plus/Pro)",
    flow: "pkce",
    clientId: "app_EMoamEEZ73f0CkXaXp7hrann",
    scopes: "openid profile email offline_access",
    callbackPort: 1455,
    callbackPath: "/auth/callback",
    tokenBody: "form",
    authorizeParams: { id_token_add_organizations: "true", codex_cli_simplified_flow: "true", originator: "codex_cli_rs" },
    defaults: { authorizeUrl: "https://auth.openai.com/oauth/authorize", tokenUrl: "https://auth.openai.com/oauth/token", usageUrl: "https://chatgpt.com/backend-api/wham/usage" },
  },
  {
    id: "github-copilot",
    name: "GitHub Copilot",
    flow: "device",
    clientId: "Iv1.b507a08c87ecfe98",
    scopes: "read:user",
    tokenBody: "json",
    defaults: {
      authorizeUrl: "https://github.com/login/device",
      deviceUrl: "https://github.com/login/device/code",
      tokenUrl: "https://github.com/login/oauth/access_token",
      exchangeUrl: "https://api.github.com/copilot_internal/v2/token",
      usageUrl: "https://api.github.com/copilot_internal/user",
    },
  },
  {
    id: "google-gemini-cli",
    name: "Google Gemini CLI (Code Assist)",
    flow: "pkce",
    clientId: "681255809395-oo8ft2oprdrnp9e3aqf6av3hmdib135j.apps.googleusercontent.com",
    clientSecret: "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",
    scopes: "https://www.googleapis.com/auth/cloud-platform https://www.googleapis.com/auth/userinfo.email https://www.googleapis.com/auth/userinfo.profile",
    callbackPort: 8085,
    callbackPath: "/oauth2callback",
    tokenBody: "form",
    authorizeParams: { access_type: "offline", prompt: "consent" },
    defaults: {
      authorizeUrl: "https://accounts.google.com/o/oauth2/v2/auth",
      tokenUrl: "https://oauth2.googleapis.com/token",
      userinfoUrl: "https://www.googleapis.com/oauth2/v2/userinfo",
      usageUrl: "https://cloudcode-pa.googleapis.com/v1internal:retrieveUserQuota",
    },
  },
];

export function oauthProvider(id: string): OAuthProvider | undefined {
  return OAUTH_PROVIDERS.find((provider) => provider.id === id);
}

const envName = (provider: OAuthProvider, what: string) => `OMP_OAUTH_${provider.id.toUpperCase().replace(/[^A-Z0-9]/g, "_")}_${what}`;

/** The provider's endpoints after environment overrides. */
export function endpointsOf(provider: OAuthProvider, env: Record<string, string | undefined> = process.env): Endpoints {
  const pick = (what: string, fallback: string | undefined) => env[envName(provider, what)]?.trim() || fallback;
  return {
    authorizeUrl: pick("AUTHORIZE_URL", provider.defaults.authorizeUrl)!,
    tokenUrl: pick("TOKEN_URL", provider.defaults.tokenUrl)!,
    deviceUrl: pick("DEVICE_URL", provider.defaults.deviceUrl),
    exchangeUrl: pick("EXCHANGE_URL", provider.defaults.exchangeUrl),
    userinfoUrl: pick("USERINFO_URL", provider.defaults.userinfoUrl),
    usageUrl: pick("USAGE_URL", provider.defaults.usageUrl),
  };
}

/** The variable that moves the provider's callback port (a private deployment, a test). */
export const callbackPortVar = (provider: OAuthProvider) => envName(provider, "CALLBACK_PORT");

export function callbackPortOf(provider: OAuthProvider, env: Record<string, string | undefined> = process.env): number | undefined {
  const override = Number.parseInt(env[callbackPortVar(provider)] ?? "", 10);
  return Number.isInteger(override) && override > 0 ? override : provider.callbackPort;
}
