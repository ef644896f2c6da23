import { hostname } from "node:os";
import { OmpError } from "../errors/omp-error.ts";
import type { OAuthCredential, StoredCredential } from "./credential.ts";
import { refreshAtProvider } from "./oauth/refresh.ts";
import { OAuthError } from "./oauth/token-endpoint.ts";
import type { CredentialStore } from "./store.ts";

/** Access tokens are refreshed this long before they expire. */
export const REFRESH_SKEW_MS = 5 * 60_000;

/** This process, as a lease holder. */
const OWNER = `${hostname()}:${process.pid}:${crypto.randomUUID().slice(0, 8)}`;
const inFlight = new Map<string, Promise<StoredCredential>>();

const leaseMs = (env: Record<string, string | undefined>) => {
  const value = Number.parseInt(env.OMP_AUTH_REFRESH_LEASE_MS ?? "", 10);
  return Number.isInteger(value) && value > 0 ? value : 30_000;
};

export interface FreshOptions {
  /** Refresh even when the access token is still good (the broker's refresh endpoint, a 401). */
  force?: boolean;
  env?: Record<string, string | undefined>;
}

export function needsRefresh(credential: OAuthCredential, now = Date.now()): boolean {
  return credential.expires - now < REFRESH_SKEW_MS;
}

/**
 * The credential with an access token that is good for a while, refreshing it if needed. A refresh
 * is single-flight per credential: within this process through a shared promise, across processes
 * through the vault's lease row, so a rotating refresh token is only ever sent once. The new tokens
 * are stored in the same moment they arrive, before anything else can fail. A definitive failure
 * (invalid_grant, a revoked login) disables the credential with the reason; a transient one throws
 * and the next attempt tries again.
 */
export function freshCredential(store: CredentialStore, stored: StoredCredential, options: FreshOptions = {}): Promise<StoredCredential> {
  const { credential } = stored;
  // A Gemini CLI login without its Code Assist project (imported, or made before omp looked it
  // up) cannot make a request: the refresh finds the project.
  const force = options.force || (stored.provider === "google-gemini-cli" && credential.type === "oauth" && !credential.projectId);
  if (credential.type !== "oauth" || (!force && !needsRefresh(credential))) return Promise.resolve(stored);
  const key = `${store.path}#${stored.id}`;
  let pending = inFlight.get(key);
  if (!pending) {
    pending = refreshUnderLease(store, stored.id, credential.refresh, { ...options, force }).finally(() => inFlight.delete(key));
    inFlight.set(key, pending);
  }
  return pending;
}

async function refreshUnderLease(store: CredentialStore, id: number, seenRefresh: string, options: FreshOptions): Promise<StoredCredential> {
  const env = options.env ?? process.env;
  const ttl = leaseMs(env);
  for (;;) {
    const current = currentRow(store, id);
    // Someone else refreshed since we looked: their result is ours.
    if (current.credential.type === "oauth" && current.credential.refresh !== seenRefresh && !needsRefresh(current.credential)) return current;
    if (!store.tryLease(id, OWNER, ttl)) {
      await Bun.sleep(100);
      continue;
    }
    try {
      const row = currentRow(store, id);
      if (row.credential.type !== "oauth") return row;
      if (row.credential.refresh !== seenRefresh && !needsRefresh(row.credential)) return row;
      if (!options.force && !needsRefresh(row.credential)) return row;
      let next: OAuthCredential;
      try {
        next = await refreshAtProvider(row.provider, row.credential, env);
      } catch (error) {
        if (error instanceof OAuthError && error.definitive) {
          store.disable(id, `refresh failed: ${error.message}`);
          throw new OmpError(`the ${row.provider} login ${describeAccount(row)} is no longer valid (${error.message}); log in again with \`omp auth login ${row.provider}\``);
        }
        throw error;
      }
      if (!store.replaceOAuth(id, row.credential.refresh, next)) return currentRow(store, id);
      return { ...row, credential: next, updatedAt: Math.floor(Date.now() / 1000) };
    } finally {
      store.releaseLease(id, OWNER);
    }
  }
}

function currentRow(store: CredentialStore, id: number): StoredCredential {
  const row = store.byId(id);
  if (row) return row;
  const cause = store.disabledCause(id);
  throw new OmpError(`credential ${id} is no longer active${cause ? ` (${cause})` : ""}`);
}

export function describeAccount(row: StoredCredential): string {
  if (row.credential.type !== "oauth") return `#${row.id}`;
  return row.credential.email ?? row.credential.accountId ?? `#${row.id}`;
}
