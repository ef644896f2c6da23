import { getProvider, hasEnvCredentials } from "../ai/providers-table.ts";
import type { Model } from "../ai/model.ts";
import { knownModels, resolveModel, withLocalModels } from "../agent/models.ts";
import { resolveApiKey } from "../auth/keys.ts";
import { openCredentialSource } from "../broker/credential-source.ts";
import type { CredentialSource } from "../auth/source.ts";
import type { ModelsConfig } from "../config/models-schema.ts";

type Env = Record<string, string | undefined>;

/** One way to call a provider: a key (or none, for a keyless local server) and where it came from. */
export interface Credential {
  key: string | undefined;
  source: string;
  /** Stable, non-secret id for stickiness, logs and usage rows. */
  label: string;
  /** The vault's (or broker's) id when the key is a stored one: where a usage limit is recorded. */
  storedId?: number;
}

/**
 * The models and credentials behind the gateway: the same catalog, models.yml, credential store
 * and environment the agent uses, so any model omp can use is served.
 */
export class Upstream {
  private readonly builtin: Model[];
  private all: Promise<Model[]> | undefined;
  private store: CredentialSource | undefined;

  constructor(
    private readonly config: ModelsConfig,
    private readonly env: Env = process.env,
  ) {
    this.builtin = knownModels(config, env);
  }

  /** Every model omp knows, running local servers included (probed once, however many requests ask at once). */
  allModels(): Promise<Model[]> {
    this.all ??= withLocalModels(this.builtin, this.env);
    return this.all;
  }

  /** The models the gateway can serve now: those whose provider has a credential or needs none. */
  async servableModels(): Promise<Model[]> {
    return (await this.allModels()).filter((m) => this.hasCredential(m.provider));
  }

  /**
   * The model a client named: `provider/id` or a bare id exactly (a provider with a credential
   * preferred), else omp's own fuzzy match. Undefined when nothing matches.
   */
  async resolve(name: string): Promise<Model | undefined> {
    const models = await this.allModels();
    const slash = name.indexOf("/");
    if (slash > 0) {
      const exact = models.find((m) => `${m.provider}/${m.id}` === name);
      if (exact) return exact;
    }
    const bare = models.filter((m) => m.id === name);
    if (bare.length > 0) return bare.find((m) => this.hasCredential(m.provider)) ?? bare[0];
    try {
      return resolveModel(name, models).model;
    } catch {
      return undefined;
    }
  }

  hasCredential(provider: string): boolean {
    const entry = this.config.providers[provider];
    if (entry?.apiKey || entry?.auth === "none") return true;
    const info = getProvider(provider);
    if (info?.keyless || (info && hasEnvCredentials(info, this.env))) return true;
    return this.credentialStore()?.has(provider) ?? false;
  }

  /**
   * Every credential for the provider, the one the agent would use first, then the other stored
   * keys: the accounts conversations are spread over and fail over to.
   */
  async credentials(provider: string): Promise<{ ok: true; credentials: Credential[] } | { ok: false; error: string }> {
    const entry = this.config.providers[provider];
    const store = this.credentialStore();
    const first = await resolveApiKey({ provider, configKey: entry?.apiKey, store, env: this.env, keyless: entry?.auth === "none" ? true : undefined });
    if (!first.ok) return first;
    const credentials: Credential[] = [{ key: first.key, source: first.source, label: labelOf(provider, first.key), ...(first.stored ? { storedId: first.stored.id } : {}) }];
    for (const { id, key } of store?.keys(provider) ?? []) {
      if (key !== first.key) credentials.push({ key, source: "credential store", label: labelOf(provider, key), storedId: id });
    }
    return { ok: true, credentials };
  }

  /**
   * A stored credential met a usage limit that says when it resets: blocked in the vault or on the
   * broker, so every process (and `GET /v1/usage`) knows, not just this gateway's rotation.
   */
  async blockStored(credential: Credential, provider: string, untilMs: number): Promise<void> {
    if (credential.storedId !== undefined) await this.store?.block(credential.storedId, provider, untilMs);
  }

  close(): void {
    this.store?.close();
  }

  /** Opened once it exists: a key added with `omp auth add` while the gateway runs is served without a restart. */
  /** The vault (once it exists: a key added with `omp auth add` while the gateway runs is served without a restart) or, in broker mode, the auth broker. */
  private credentialStore(): CredentialSource | undefined {
    if (this.store === undefined) {
      this.store = openCredentialSource(this.env);
      // The gateway runs for days: credentials added, disabled or refreshed on the broker reach it live.
      this.store?.follow?.();
    }
    return this.store;
  }
}

function labelOf(provider: string, key: string | undefined): string {
  if (key === undefined) return `${provider}:keyless`;
  return `${provider}:${new Bun.CryptoHasher("sha256").update(key).digest("hex").slice(0, 10)}`;
}
