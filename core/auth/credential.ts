/**
 * The credential shapes the vault stores, the broker sends and the agent uses. Plain types, no zod:
 * the agent's start-up path reads them (the broker's wire schemas in core/broker/wire.ts validate
 * what arrives over the network).
 */

export interface ApiKeyCredential {
  type: "api_key";
  key: string;
}

export interface OAuthCredential {
  type: "oauth";
  access: string;
  /** In snapshots sent to broker clients this is REMOTE_REFRESH_SENTINEL: refresh tokens never leave the broker. */
  refresh: string;
  /** When the access token expires, epoch ms. */
  expires: number;
  email?: string;
  accountId?: string;
  projectId?: string;
  enterpriseUrl?: string;
  /** GitHub Copilot: the API base the Copilot token's `endpoints.api` names for this account's plan. */
  apiBase?: string;
}

export type Credential = ApiKeyCredential | OAuthCredential;

export const REMOTE_REFRESH_SENTINEL = "__remote__";

/** A vault row that is in use. */
export interface StoredCredential {
  id: number;
  provider: string;
  credential: Credential;
  /** `email:<e>` / `account:<id>` / `project:<id>`: one row per account, so logging in again updates it. */
  identityKey: string | null;
  /** Unix seconds. */
  createdAt: number;
  updatedAt: number;
}

export function identityKeyOf(credential: Credential): string | null {
  if (credential.type !== "oauth") return null;
  if (credential.email) return `email:${credential.email}`;
  if (credential.accountId) return `account:${credential.accountId}`;
  if (credential.projectId) return `project:${credential.projectId}`;
  return null;
}

/** How a login is named to the user: its email, else its ChatGPT account or Code Assist project. */
export function accountLabel(credential: OAuthCredential, id: number): string {
  if (credential.email) return credential.email;
  if (credential.accountId) return `account ${credential.accountId}`;
  if (credential.projectId) return `project ${credential.projectId}`;
  return `login #${id}`;
}

/** Every secret a credential holds, for redaction. */
export function secretsOf(credential: Credential): string[] {
  if (credential.type === "api_key") return [credential.key];
  return [credential.access, credential.refresh].filter((value) => value !== REMOTE_REFRESH_SENTINEL);
}

/** Parses the JSON the vault keeps in `data`; a row whose data is not a credential (wiped, foreign) is null. */
export function parseCredential(type: string, data: string): Credential | null {
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(data);
  } catch {
    return null;
  }
  if (parsed === null || typeof parsed !== "object") return null;
  if (type === "api_key") return typeof parsed.key === "string" && parsed.key !== "" ? { type: "api_key", key: parsed.key } : null;
  if (type !== "oauth" || typeof parsed.access !== "string" || typeof parsed.refresh !== "string" || typeof parsed.expires !== "number") return null;
  const credential: OAuthCredential = { type: "oauth", access: parsed.access, refresh: parsed.refresh, expires: parsed.expires };
  for (const field of ["email", "accountId", "projectId", "enterpriseUrl", "apiBase"] as const) {
    if (typeof parsed[field] === "string") credential[field] = parsed[field];
  }
  return credential;
}

/** The JSON kept in `data`: everything but the type, which has its own column. */
export function credentialData(credential: Credential): string {
  const { type: _type, ...rest } = credential;
  return JSON.stringify(rest);
}
