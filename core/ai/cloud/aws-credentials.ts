import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { runCredentialCommand } from "./command.ts";
import { parseIni } from "./ini.ts";
import type { AwsCredentials } from "./sigv4.ts";

type Env = Record<string, string | undefined>;

/** Where the credentials came from, for errors and `omp doctor`; never the secret itself. */
export interface ResolvedAwsCredentials extends AwsCredentials {
  source: string;
}

const PROCESS_TIMEOUT_MS = 30_000;
const METADATA_TIMEOUT_MS = 1_000;
/** Refreshed this long before they expire, so a signature never carries credentials about to lapse. */
const EXPIRY_MARGIN_MS = 5 * 60_000;

const cache = new Map<string, Promise<ResolvedAwsCredentials>>();

/**
 * AWS's default chain, in the SDKs' order: keys in the environment, the profile (AWS_PROFILE or
 * `default`) in ~/.aws/credentials and ~/.aws/config — static keys, `credential_process`, or an SSO
 * login's cached token — then a container's credentials endpoint, then the instance's (IMDSv2).
 * Temporary credentials are kept until shortly before they expire.
 */
export async function awsCredentials(env: Env): Promise<ResolvedAwsCredentials> {
  const key = [env.AWS_ACCESS_KEY_ID, env.AWS_PROFILE, env.AWS_SHARED_CREDENTIALS_FILE, env.AWS_CONFIG_FILE, env.HOME].join("\0");
  const cached = cache.get(key);
  if (cached) {
    const value = await cached.catch(() => undefined);
    if (value && (value.expiresAt === undefined || value.expiresAt - EXPIRY_MARGIN_MS > Date.now())) return value;
  }
  const fresh = resolveChain(env);
  cache.set(key, fresh);
  fresh.catch(() => cache.delete(key));
  return fresh;
}

async function resolveChain(env: Env): Promise<ResolvedAwsCredentials> {
  if (env.AWS_ACCESS_KEY_ID && env.AWS_SECRET_ACCESS_KEY) {
    return { accessKeyId: env.AWS_ACCESS_KEY_ID, secretAccessKey: env.AWS_SECRET_ACCESS_KEY, ...(env.AWS_SESSION_TOKEN && { sessionToken: env.AWS_SESSION_TOKEN }), source: "AWS_ACCESS_KEY_ID" };
  }
  const profileName = env.AWS_PROFILE ?? env.AWS_DEFAULT_PROFILE ?? "default";
  const profile = awsProfile(env, profileName);
  if (profile) {
    const fromProfile = await profileCredentials(env, profileName, profile);
    if (fromProfile) return fromProfile;
  } else if (env.AWS_PROFILE) {
    throw new Error(`AWS_PROFILE=${env.AWS_PROFILE}: no such profile in ${credentialsFile(env)} or ${configFile(env)}`);
  }
  const container = await containerCredentials(env);
  if (container) return container;
  const instance = await instanceCredentials(env);
  if (instance) return instance;
  throw new Error(
    "no AWS credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, AWS_PROFILE (a profile in ~/.aws), or AWS_BEARER_TOKEN_BEDROCK; `aws sso login` for an SSO profile",
  );
}

const credentialsFile = (env: Env) => env.AWS_SHARED_CREDENTIALS_FILE ?? join(env.HOME ?? "", ".aws", "credentials");
const configFile = (env: Env) => env.AWS_CONFIG_FILE ?? join(env.HOME ?? "", ".aws", "config");

function readIni(path: string): Map<string, Record<string, string>> {
  try {
    return parseIni(readFileSync(path, "utf8"));
  } catch {
    return new Map();
  }
}

/** The profile's settings: the config file's `[profile name]` (`[default]`), overlaid by the credentials file's `[name]`. */
export function awsProfile(env: Env, name: string): Record<string, string> | undefined {
  const config = readIni(configFile(env));
  const fromConfig = config.get(name === "default" ? "default" : `profile ${name}`) ?? (name === "default" ? config.get("profile default") : undefined);
  const fromCredentials = readIni(credentialsFile(env)).get(name);
  if (!fromConfig && !fromCredentials) return undefined;
  return { ...fromConfig, ...fromCredentials };
}

/** The region: the SDKs' variables, then the profile's `region`. */
export function awsRegion(env: Env): string | undefined {
  if (env.AWS_REGION) return env.AWS_REGION;
  if (env.AWS_DEFAULT_REGION) return env.AWS_DEFAULT_REGION;
  return awsProfile(env, env.AWS_PROFILE ?? env.AWS_DEFAULT_PROFILE ?? "default")?.region;
}

async function profileCredentials(env: Env, name: string, profile: Record<string, string>): Promise<ResolvedAwsCredentials | undefined> {
  if (profile.aws_access_key_id && profile.aws_secret_access_key) {
    return {
      accessKeyId: profile.aws_access_key_id,
      secretAccessKey: profile.aws_secret_access_key,
      ...(profile.aws_session_token && { sessionToken: profile.aws_session_token }),
      source: `profile ${name}`,
    };
  }
  if (profile.credential_process) return processCredentials(profile.credential_process, name);
  if (profile.sso_session || profile.sso_start_url) return ssoCredentials(env, name, profile);
  if (profile.role_arn) throw new Error(`profile ${name}: role_arn (assuming a role) is not supported yet; use credential_process, SSO or keys`);
  return undefined;
}

function parseProcessOutput(text: string, name: string): ResolvedAwsCredentials {
  let value: Record<string, unknown>;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error(`profile ${name}: credential_process printed something that is not JSON`);
  }
  if (value.Version !== 1 || typeof value.AccessKeyId !== "string" || typeof value.SecretAccessKey !== "string") {
    throw new Error(`profile ${name}: credential_process must print {"Version": 1, "AccessKeyId": …, "SecretAccessKey": …}`);
  }
  const expiresAt = typeof value.Expiration === "string" ? Date.parse(value.Expiration) : undefined;
  return {
    accessKeyId: value.AccessKeyId,
    secretAccessKey: value.SecretAccessKey,
    ...(typeof value.SessionToken === "string" && { sessionToken: value.SessionToken }),
    ...(expiresAt !== undefined && !Number.isNaN(expiresAt) && { expiresAt }),
    source: `profile ${name} (credential_process)`,
  };
}

/** `credential_process`: the user's own command line, run as the AWS CLI runs it, with a time limit. */
async function processCredentials(command: string, name: string): Promise<ResolvedAwsCredentials> {
  const output = await runCredentialCommand(["sh", "-c", command], PROCESS_TIMEOUT_MS);
  if ("timedOut" in output) throw new Error(`profile ${name}: credential_process did not finish within ${PROCESS_TIMEOUT_MS / 1000} s`);
  const { stdout, stderr, code } = output;
  if (code !== 0) throw new Error(`profile ${name}: credential_process exited with ${code}${stderr ? `: ${stderr}` : ""}`);
  return parseProcessOutput(stdout, name);
}

/**
 * An IAM Identity Center (SSO) profile: the token `aws sso login` cached, exchanged for the role's
 * temporary credentials at the SSO portal (AWS_ENDPOINT_URL_SSO overrides its address).
 */
async function ssoCredentials(env: Env, name: string, profile: Record<string, string>): Promise<ResolvedAwsCredentials> {
  const session = profile.sso_session ? readIni(configFile(env)).get(`sso-session ${profile.sso_session}`) : undefined;
  const startUrl = session?.sso_start_url ?? profile.sso_start_url;
  const region = session?.sso_region ?? profile.sso_region;
  if (!startUrl || !region || !profile.sso_account_id || !profile.sso_role_name) {
    throw new Error(`profile ${name}: an SSO profile needs sso_start_url, sso_region, sso_account_id and sso_role_name`);
  }
  const cacheName = createHash("sha1").update(profile.sso_session ?? startUrl).digest("hex");
  const cachePath = join(env.HOME ?? "", ".aws", "sso", "cache", `${cacheName}.json`);
  let token: { accessToken?: unknown; expiresAt?: unknown };
  try {
    token = JSON.parse(readFileSync(cachePath, "utf8"));
  } catch {
    throw new Error(`profile ${name}: no SSO login cached; run \`aws sso login --profile ${name}\``);
  }
  if (typeof token.accessToken !== "string" || (typeof token.expiresAt === "string" && Date.parse(token.expiresAt) <= Date.now())) {
    throw new Error(`profile ${name}: the SSO login has expired; run \`aws sso login --profile ${name}\``);
  }
  const portal = env.AWS_ENDPOINT_URL_SSO ?? `https://portal.sso.${region}.amazonaws.com`;
  const url = `${portal.replace(/\/+$/, "")}/federation/credentials?account_id=${encodeURIComponent(profile.sso_account_id)}&role_name=${encodeURIComponent(profile.sso_role_name)}`;
  const response = await fetch(url, { headers: { "x-amz-sso_bearer_token": token.accessToken }, signal: AbortSignal.timeout(10_000) });
  if (!response.ok) throw new Error(`profile ${name}: the SSO portal refused the cached login (${response.status}); run \`aws sso login --profile ${name}\``);
  const body = (await response.json()) as { roleCredentials?: Record<string, unknown> };
  const role = body.roleCredentials;
  if (!role || typeof role.accessKeyId !== "string" || typeof role.secretAccessKey !== "string") throw new Error(`profile ${name}: the SSO portal's answer had no role credentials`);
  return {
    accessKeyId: role.accessKeyId,
    secretAccessKey: role.secretAccessKey,
    ...(typeof role.sessionToken === "string" && { sessionToken: role.sessionToken }),
    ...(typeof role.expiration === "number" && { expiresAt: role.expiration }),
    source: `profile ${name} (SSO)`,
  };
}

function metadataCredentials(value: Record<string, unknown>, source: string): ResolvedAwsCredentials | undefined {
  if (typeof value.AccessKeyId !== "string" || typeof value.SecretAccessKey !== "string") return undefined;
  const expiresAt = typeof value.Expiration === "string" ? Date.parse(value.Expiration) : undefined;
  return {
    accessKeyId: value.AccessKeyId,
    secretAccessKey: value.SecretAccessKey,
    ...(typeof value.Token === "string" && { sessionToken: value.Token }),
    ...(expiresAt !== undefined && !Number.isNaN(expiresAt) && { expiresAt }),
    source,
  };
}

/** ECS/EKS: the container's credentials endpoint, with its authorization token when one is given. */
async function containerCredentials(env: Env): Promise<ResolvedAwsCredentials | undefined> {
  const url = env.AWS_CONTAINER_CREDENTIALS_FULL_URI ?? (env.AWS_CONTAINER_CREDENTIALS_RELATIVE_URI ? `http://169.254.170.2${env.AWS_CONTAINER_CREDENTIALS_RELATIVE_URI}` : undefined);
  if (!url) return undefined;
  let authorization = env.AWS_CONTAINER_AUTHORIZATION_TOKEN;
  if (env.AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE) authorization = readFileSync(env.AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE, "utf8").trim();
  const response = await fetch(url, { headers: authorization ? { authorization } : {}, signal: AbortSignal.timeout(METADATA_TIMEOUT_MS * 5) });
  if (!response.ok) throw new Error(`the container credentials endpoint answered ${response.status}`);
  return metadataCredentials((await response.json()) as Record<string, unknown>, "container credentials");
}

/** EC2's instance metadata service, version 2 (a session token first); quick to give up off EC2. */
async function instanceCredentials(env: Env): Promise<ResolvedAwsCredentials | undefined> {
  if (env.AWS_EC2_METADATA_DISABLED?.toLowerCase() === "true") return undefined;
  const base = (env.AWS_EC2_METADATA_SERVICE_ENDPOINT ?? "http://169.254.169.254").replace(/\/+$/, "");
  try {
    const signal = () => AbortSignal.timeout(METADATA_TIMEOUT_MS);
    const tokenResponse = await fetch(`${base}/latest/api/token`, { method: "PUT", headers: { "x-aws-ec2-metadata-token-ttl-seconds": "21600" }, signal: signal() });
    if (!tokenResponse.ok) return undefined;
    const token = await tokenResponse.text();
    const headers = { "x-aws-ec2-metadata-token": token };
    const roles = await fetch(`${base}/latest/meta-data/iam/security-credentials/`, { headers, signal: signal() });
    if (!roles.ok) return undefined;
    const role = (await roles.text()).split("\n")[0]?.trim();
    if (!role) return undefined;
    const response = await fetch(`${base}/latest/meta-data/iam/security-credentials/${encodeURIComponent(role)}`, { headers, signal: signal() });
    if (!response.ok) return undefined;
    return metadataCredentials((await response.json()) as Record<string, unknown>, `instance role ${role}`);
  } catch {
    return undefined;
  }
}
