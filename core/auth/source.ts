import { codeAssistKey } from "../ai/apis/google-gemini-cli/key.ts";
import type { Credential } from "./credential.ts";

/** A credential picked for a request: the secret to send and where it came from. */
export interface ResolvedCredential {
  id: number;
  provider: string;
  key: string;
  credential: Credential;
  /** For messages: "credential store", "auth broker". */
  source: string;
}

export interface StoredKey {
  id: number;
  key: string;
}

/**
 * Where stored credentials come from: the local vault, or an auth broker (core/broker/client.ts).
 * The agent, `omp auth list` and the gateway only see this, so broker mode is transparent to them.
 */
export interface CredentialSource {
  readonly kind: "local" | "broker";
  /** Loads what `has` needs (the broker's snapshot); resolve waits for it by itself. */
  ready?(): Promise<void>;
  has(provider: string): boolean;
  /**
   * The newest usable credential of the provider with a fresh access token; `skip` holds ids this
   * session already found blocked. Undefined when there is none.
   */
  resolve(provider: string, skip?: ReadonlySet<number>): Promise<ResolvedCredential | undefined>;
  /** Every stored key (or access token) of the provider with its id, newest first: the accounts the gateway spreads conversations over. */
  keys(provider: string): StoredKey[];
  /** Blocks a credential until a usage limit resets, for every process sharing the vault. */
  block(id: number, provider: string, untilMs: number): Promise<void>;
  /** Why the last resolve passed over a credential (a revoked login), for the error when none was usable. */
  readonly lastProblem?: string;
  /** Follows changes made elsewhere while the process runs (the broker's stream); long-running processes only. */
  follow?(): void;
  /** Every secret it holds, for redaction. */
  secrets(): string[];
  close(): void;
}

/** What a request carries: the key, the access token, or for Gemini CLI the token with its Code Assist project. */
export function keyOf(credential: Credential, provider: string): string {
  if (credential.type === "api_key") return credential.key;
  if (provider === "google-gemini-cli" && credential.projectId) return codeAssistKey(credential.access, credential.projectId);
  return credential.access;
}
