type Env = Record<string, string | undefined>;

export interface AzureToken {
  accessToken: string;
  expiresAt: number;
  source: string;
}

/** The audience of Azure OpenAI and Foundry tokens. */
const SCOPE = "https://cognitiveservices.azure.com/.default";
const EXPIRY_MARGIN_MS = 5 * 60_000;
const AZ_TIMEOUT_MS = 30_000;

let cached: Promise<AzureToken> | undefined;

/**
 * Entra ID without a key: a service principal's client secret (AZURE_TENANT_ID, AZURE_CLIENT_ID,
 * AZURE_CLIENT_SECRET; AZURE_AUTHORITY_HOST for sovereign clouds), else the signed-in `az` CLI.
 */
export async function azureAccessToken(env: Env): Promise<AzureToken> {
  const current = await cached?.catch(() => undefined);
  if (current && current.expiresAt - EXPIRY_MARGIN_MS > Date.now()) return current;
  cached = env.AZURE_CLIENT_SECRET && env.AZURE_CLIENT_ID && env.AZURE_TENANT_ID ? clientSecretToken(env) : azCliToken();
  return cached;
}

async function clientSecretToken(env: Env): Promise<AzureToken> {
  const authority = (env.AZURE_AUTHORITY_HOST ?? "https://login.microsoftonline.com").replace(/\/+$/, "");
  const response = await fetch(`${authority}/${encodeURIComponent(env.AZURE_TENANT_ID!)}/oauth2/v2.0/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ grant_type: "client_credentials", client_id: env.AZURE_CLIENT_ID!, client_secret: env.AZURE_CLIENT_SECRET!, scope: SCOPE }).toString(),
    signal: AbortSignal.timeout(10_000),
  });
  const text = (await response.text()).slice(0, 64 * 1024);
  if (!response.ok) throw new Error(`Entra ID refused the client secret of AZURE_CLIENT_ID (${response.status}: ${text.slice(0, 300)})`);
  const body = JSON.parse(text) as { access_token?: unknown; expires_in?: unknown };
  if (typeof body.access_token !== "string") throw new Error("Entra ID's answer had no access_token");
  return { accessToken: body.access_token, expiresAt: Date.now() + (Number(body.expires_in) || 3600) * 1000, source: "AZURE_CLIENT_SECRET" };
}

async function azCliToken(): Promise<AzureToken> {
  let child;
  try {
    child = Bun.spawn(["az", "account", "get-access-token", "--resource", "https://cognitiveservices.azure.com", "--output", "json"], { stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  } catch {
    throw new Error("no Azure credentials: set AZURE_OPENAI_API_KEY (or ANTHROPIC_FOUNDRY_API_KEY), a service principal (AZURE_CLIENT_ID, AZURE_TENANT_ID, AZURE_CLIENT_SECRET), or run `az login`");
  }
  const timer = setTimeout(() => child.kill("SIGKILL"), AZ_TIMEOUT_MS);
  try {
    const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
    if (code !== 0) throw new Error(`\`az account get-access-token\` failed (${stderr.trim().slice(0, 300) || `exit ${code}`}); run \`az login\``);
    const body = JSON.parse(stdout) as { accessToken?: unknown; expires_on?: unknown; expiresOn?: unknown };
    if (typeof body.accessToken !== "string") throw new Error("`az account get-access-token` printed no accessToken");
    const expiresAt = typeof body.expires_on === "number" ? body.expires_on * 1000 : typeof body.expiresOn === "string" ? Date.parse(body.expiresOn) : Date.now() + 3600_000;
    return { accessToken: body.accessToken, expiresAt, source: "az CLI" };
  } finally {
    clearTimeout(timer);
  }
}
