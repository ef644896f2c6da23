import { readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import type { OAuthCredential } from "../auth/credential.ts";
import { describeError } from "../errors/omp-error.ts";

/** CLIProxyAPI's `type` → omp's provider. */
const TYPES: Record<string, string> = {
  claude: "anthropic",
  codex: "openai-codex",
  gemini: "google-gemini-cli",
  "gemini-cli": "google-gemini-cli",
  antigravity: "google-antigravity",
};

export interface ImportItem {
  file: string;
  provider?: string;
  credential?: OAuthCredential;
  /** Why the file was skipped. */
  skipped?: string;
}

const text = (value: unknown) => (typeof value === "string" && value !== "" ? value : undefined);

function expiryOf(value: unknown): number {
  if (typeof value === "number") return value < 1e12 ? value * 1000 : value;
  const parsed = typeof value === "string" ? Date.parse(value) : Number.NaN;
  // Unknown expiry: treat the access token as expired, so the first use refreshes it.
  return Number.isNaN(parsed) ? 0 : parsed;
}

/** One CLIProxyAPI credential file (flat, or Gemini's with a nested `token`). */
export function parseCliProxyCredential(file: string, raw: string, options: { provider?: string; includeDisabled?: boolean } = {}): ImportItem {
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(raw);
  } catch (error) {
    return { file, skipped: `not JSON (${describeError(error)})` };
  }
  if (json === null || typeof json !== "object") return { file, skipped: "not a JSON object" };
  if (json.disabled === true && !options.includeDisabled) return { file, skipped: "disabled (use --include-disabled)" };
  const provider = options.provider ?? TYPES[String(json.type ?? "")];
  if (!provider) return { file, skipped: `unknown type ${JSON.stringify(json.type)} (use --provider)` };
  const token = (json.token && typeof json.token === "object" ? json.token : json) as Record<string, unknown>;
  const access = text(token.access_token);
  const refresh = text(token.refresh_token);
  if (!access || !refresh) return { file, skipped: "no access_token and refresh_token" };
  const credential: OAuthCredential = { type: "oauth", access, refresh, expires: expiryOf(json.expired ?? token.expiry ?? json.expire) };
  const email = text(json.email);
  const accountId = text(json.account_id);
  const projectId = text(json.project_id);
  if (email) credential.email = email;
  if (accountId) credential.accountId = accountId;
  if (projectId) credential.projectId = projectId;
  return { file, provider, credential };
}

/** Every `*.json` in `path` (or the file itself). */
export function readCliProxyCredentials(path: string, options: { provider?: string; includeDisabled?: boolean } = {}): ImportItem[] {
  const files = statSync(path).isDirectory()
    ? readdirSync(path)
        .filter((name) => name.endsWith(".json"))
        .sort()
        .map((name) => join(path, name))
    : [path];
  return files.map((file) => parseCliProxyCredential(file, readFileSync(file, "utf8"), options));
}
