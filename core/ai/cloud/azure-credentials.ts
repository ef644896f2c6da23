import { runCredentialCommand } from "./command.ts";
import { type AccessToken, exchangeForToken, tokenCache } from "./token.ts";

type Env = Record<string, string | undefined>;

/** The audience of Azure OpenAI and Foundry tokens. */
const SCOPE = "https://cognitiveservices.azure.com/.default";
const AZ_TIMEOUT_MS = 30_000;

let current: (() => Promise<AccessToken>) | undefined;

/**
 * Entra ID without a key: a service principal's client secret (AZURE_TENANT_ID, AZURE_CLIENT_ID,
 * AZURE_CLIENT_SECRET; AZURE_AUTHORITY_HOST for sovereign clouds), else the signed-in `az` CLI.
 */
export function azureAccessToken(env: Env): Promise<AccessToken> {
  current ??= tokenCache(() => (env.AZURE_CLIENT_SECRET && env.AZURE_CLIENT_ID && env.AZURE_TENANT_ID ? clientSecretToken(env) : azCliToken()));
  return current();
}

function clientSecretToken(env: Env): Promise<AccessToken> {
  const authority = (env.AZURE_AUTHORITY_HOST ?? "https://login.microsoftonline.com").replace(/\/+$/, "");
  const form = { grant_type: "client_credentials", client_id: env.AZURE_CLIENT_ID!, client_secret: env.AZURE_CLIENT_SECRET!, scope: SCOPE };
  return exchangeForToken(`${authority}/${encodeURIComponent(env.AZURE_TENANT_ID!)}/oauth2/v2.0/token`, form, "Entra ID (AZURE_CLIENT_SECRET)");
}

async function azCliToken(): Promise<AccessToken> {
  let output;
  try {
    output = await runCredentialCommand(["az", "account", "get-access-token", "--resource", "https://cognitiveservices.azure.com", "--output", "json"], AZ_TIMEOUT_MS);
  } catch {
    throw new Error("no Azure credentials: set AZURE_OPENAI_API_KEY (or ANTHROPIC_FOUNDRY_API_KEY), a service principal (AZURE_CLIENT_ID, AZURE_TENANT_ID, AZURE_CLIENT_SECRET), or run `az login`");
  }
  if ("timedOut" in output) throw new Error(`\`az account get-access-token\` did not finish within ${AZ_TIMEOUT_MS / 1000} s; run \`az login\``);
  if (output.code !== 0) throw new Error(`\`az account get-access-token\` failed (${output.stderr || `exit ${output.code}`}); run \`az login\``);
  const body = JSON.parse(output.stdout) as { accessToken?: unknown; expires_on?: unknown; expiresOn?: unknown };
  if (typeof body.accessToken !== "string") throw new Error("`az account get-access-token` printed no accessToken");
  const expiresAt = typeof body.expires_on === "number" ? body.expires_on * 1000 : typeof body.expiresOn === "string" ? Date.parse(body.expiresOn) : Date.now() + 3600_000;
  return { accessToken: body.accessToken, expiresAt, source: "az CLI" };
}
