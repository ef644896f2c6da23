import { describeError } from "../errors/omp-error.ts";
import { freshCredential } from "./fresh.ts";
import { type CredentialSource, type ResolvedCredential, type StoredKey, keyOf } from "./source.ts";
import type { CredentialStore } from "./store.ts";

/** Credentials from this machine's vault, refreshed in place. */
export class LocalCredentialSource implements CredentialSource {
  readonly kind = "local";
  /** Why the last candidate was passed over, for the error when none is left. */
  lastProblem: string | undefined;

  constructor(
    readonly store: CredentialStore,
    private readonly env: Record<string, string | undefined> = process.env,
  ) {}

  has(provider: string): boolean {
    return this.store.active(provider).length > 0;
  }

  async resolve(provider: string, skip?: ReadonlySet<number>): Promise<ResolvedCredential | undefined> {
    const blocked = this.store.blocks();
    const rows = this.store.active(provider);
    const limited = rows.filter((row) => blocked.has(row.id)).map((row) => blocked.get(row.id)!);
    if (rows.length > 0 && limited.length === rows.length) {
      this.lastProblem = `every stored ${provider} credential has reached its usage limit; the earliest resets at ${new Date(Math.min(...limited)).toISOString()}`;
    }
    for (const row of rows) {
      if (skip?.has(row.id) || blocked.has(row.id)) continue;
      try {
        const fresh = await freshCredential(this.store, row, { env: this.env });
        return { id: fresh.id, provider, key: keyOf(fresh.credential, provider), credential: fresh.credential, source: "credential store" };
      } catch (error) {
        // A refresh that failed for now leaves a token that may still work until it expires.
        if (row.credential.type === "oauth" && row.credential.expires > Date.now() && this.store.byId(row.id)) {
          return { id: row.id, provider, key: keyOf(row.credential, provider), credential: row.credential, source: "credential store" };
        }
        this.lastProblem = describeError(error);
      }
    }
    return undefined;
  }

  keys(provider: string): StoredKey[] {
    return this.store.active(provider).map((row) => ({ id: row.id, key: keyOf(row.credential, provider) }));
  }

  async block(id: number, provider: string, untilMs: number): Promise<void> {
    this.store.block(id, provider, untilMs);
  }

  secrets(): string[] {
    return this.store.secrets();
  }

  close(): void {
    this.store.close();
  }
}
