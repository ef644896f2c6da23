import { createSign } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { type AccessToken, exchangeForToken, tokenCache } from "./token.ts";

type Env = Record<string, string | undefined>;

export interface GoogleToken extends AccessToken {
  /** The project a key file names, when the environment names none. */
  project?: string;
}

const SCOPE = "https://www.googleapis.com/auth/cloud-platform";
const DEFAULT_TOKEN_URI = "https://oauth2.googleapis.com/token";

let current: (() => Promise<GoogleToken>) | undefined;

/**
 * Application Default Credentials, in Google's order: the key file GOOGLE_APPLICATION_CREDENTIALS
 * names (a service account, whose signed JWT is exchanged for a token; or a user's refresh
 * token), then gcloud's `auth application-default login` file, then the metadata server of the
 * machine omp runs on. A token is kept until shortly before it expires.
 */
export function googleAccessToken(env: Env): Promise<GoogleToken> {
  current ??= tokenCache(() => mint(env));
  return current();
}

async function mint(env: Env): Promise<GoogleToken> {
  const file = env.GOOGLE_APPLICATION_CREDENTIALS || join(env.CLOUDSDK_CONFIG ?? join(env.HOME ?? "", ".config", "gcloud"), "application_default_credentials.json");
  let key: Record<string, unknown> | undefined;
  try {
    key = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    if (env.GOOGLE_APPLICATION_CREDENTIALS) {
      throw new Error(`GOOGLE_APPLICATION_CREDENTIALS=${file}: ${(error as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : "not a JSON key file"}`);
    }
  }
  if (key?.type === "service_account") return serviceAccountToken(key, file);
  if (key?.type === "authorized_user") return refreshToken(key, file);
  if (key) throw new Error(`${file}: credentials of type ${JSON.stringify(key.type)} are not supported; use a service account key or \`gcloud auth application-default login\``);
  return metadataToken(env);
}

const base64url = (data: string | Buffer) => Buffer.from(data).toString("base64url");

async function tokenRequest(uri: string, form: Record<string, string>, source: string, project?: string): Promise<GoogleToken> {
  return { ...(await exchangeForToken(uri, form, source)), ...(project && { project }) };
}

/** A JWT signed with the service account's RSA key (RS256), traded at its token_uri (RFC 7523). */
function serviceAccountToken(key: Record<string, unknown>, file: string): Promise<GoogleToken> {
  if (typeof key.client_email !== "string" || typeof key.private_key !== "string") throw new Error(`${file}: a service account key needs client_email and private_key`);
  const tokenUri = typeof key.token_uri === "string" ? key.token_uri : DEFAULT_TOKEN_URI;
  const now = Math.floor(Date.now() / 1000);
  const header = { alg: "RS256", typ: "JWT", ...(typeof key.private_key_id === "string" && { kid: key.private_key_id }) };
  const claims = { iss: key.client_email, scope: SCOPE, aud: tokenUri, iat: now, exp: now + 3600 };
  const unsigned = `${base64url(JSON.stringify(header))}.${base64url(JSON.stringify(claims))}`;
  const signature = createSign("RSA-SHA256").update(unsigned).sign(key.private_key);
  const assertion = `${unsigned}.${base64url(signature)}`;
  const project = typeof key.project_id === "string" ? key.project_id : undefined;
  return tokenRequest(tokenUri, { grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer", assertion }, `service account ${key.client_email}`, project);
}

function refreshToken(key: Record<string, unknown>, file: string): Promise<GoogleToken> {
  if (typeof key.client_id !== "string" || typeof key.client_secret !== "string" || typeof key.refresh_token !== "string") {
    throw new Error(`${file}: user credentials need client_id, client_secret and refresh_token; run \`gcloud auth application-default login\` again`);
  }
  const tokenUri = typeof key.token_uri === "string" ? key.token_uri : DEFAULT_TOKEN_URI;
  const project = typeof key.quota_project_id === "string" ? key.quota_project_id : undefined;
  return tokenRequest(tokenUri, { grant_type: "refresh_token", client_id: key.client_id, client_secret: key.client_secret, refresh_token: key.refresh_token }, "gcloud application-default login", project);
}

/** The metadata server of a Google Cloud machine (GCE_METADATA_HOST overrides its address). */
async function metadataToken(env: Env): Promise<GoogleToken> {
  const host = env.GCE_METADATA_HOST ?? "metadata.google.internal";
  const url = `http://${host}/computeMetadata/v1/instance/service-accounts/default/token`;
  let response: Response;
  try {
    response = await fetch(url, { headers: { "metadata-flavor": "Google" }, signal: AbortSignal.timeout(2_000) });
  } catch {
    throw new Error("no Google credentials: set GOOGLE_APPLICATION_CREDENTIALS to a service account key, run `gcloud auth application-default login`, or set GOOGLE_CLOUD_API_KEY");
  }
  if (!response.ok) throw new Error(`the metadata server answered ${response.status} for a token`);
  const body = (await response.json()) as { access_token?: unknown; expires_in?: unknown };
  if (typeof body.access_token !== "string") throw new Error("the metadata server's answer had no access_token");
  return { accessToken: body.access_token, expiresAt: Date.now() + (typeof body.expires_in === "number" ? body.expires_in : 3600) * 1000, source: "metadata server" };
}
