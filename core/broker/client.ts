import { OmpError, describeError } from "../errors/omp-error.ts";
import { secretsOf } from "../auth/credential.ts";
import { type CredentialSource, type ResolvedCredential, type StoredKey, keyOf } from "../auth/source.ts";
import type { BrokerClientConfig } from "./config.ts";
import { readSnapshotCache, writeSnapshotCache } from "./snapshot-cache.ts";
import type { AppliedEvent, Follower } from "./follow.ts";
import type { Snapshot, SnapshotEntry } from "./wire.ts";
import type { z } from "zod";
import { describeZodError } from "../errors/zod-issues.ts";

/** The wire schemas, loaded with the first answer to check: a start from the snapshot cache needs no zod. */
const wire = () => require("./wire.ts") as typeof import("./wire.ts");

const TIMEOUT_MS = 10_000;
/** A client asks the broker for a new access token this long before its copy expires. */
const CLIENT_SKEW_MS = 60_000;

/**
 * Credentials served by an auth broker. Starts from the encrypted snapshot cache when it is fresh
 * (no request before the first model call), else from `GET /v1/snapshot`; an access token about to
 * expire is refreshed by the broker (`POST /v1/credential/:id/refresh`), which alone holds the
 * refresh tokens.
 */
export class BrokerCredentialSource implements CredentialSource {
  readonly kind = "broker";
  lastProblem: string | undefined;
  private snapshot: Snapshot | undefined;
  private readonly blocked = new Map<number, number>();
  private follower: Follower | undefined;
  private saving: Promise<void> = Promise.resolve();

  constructor(readonly config: BrokerClientConfig) {}

  /** Loads the snapshot: from the cache when it is fresh, else from the broker. */
  async ready(): Promise<void> {
    if (this.snapshot) return;
    const cached = await readSnapshotCache(this.config);
    if (cached.problem) this.lastProblem = cached.problem;
    this.snapshot = cached.snapshot;
    if (this.snapshot) return;
    try {
      await this.fetchSnapshot();
    } catch (error) {
      // Without the broker, the cache was the way to go on: say why it could not be.
      throw cached.problem ? new OmpError(`${describeError(error)}\n${cached.problem}`, { cause: error }) : error;
    }
  }

  async fetchSnapshot(): Promise<Snapshot> {
    const snapshot = await this.request("GET", "/v1/snapshot", wire().Snapshot);
    this.snapshot = snapshot;
    await this.save();
    return snapshot;
  }

  entries(): SnapshotEntry[] {
    return this.snapshot?.credentials ?? [];
  }

  has(provider: string): boolean {
    return this.entries().some((entry) => entry.provider === provider);
  }

  async resolve(provider: string, skip?: ReadonlySet<number>): Promise<ResolvedCredential | undefined> {
    await this.ready();
    const now = Date.now();
    const candidates = this.entries()
      .filter((entry) => entry.provider === provider && !skip?.has(entry.id) && (this.blocked.get(entry.id) ?? 0) <= now)
      .filter((entry) => !entry.blocks?.some((block) => block.blockedUntilMs > now))
      .sort((a, b) => b.id - a.id);
    for (const entry of candidates) {
      let current = entry;
      if (current.credential.type === "oauth" && current.credential.expires - now < CLIENT_SKEW_MS) {
        try {
          current = (await this.request("POST", `/v1/credential/${entry.id}/refresh`, wire().EntryResponse)).entry;
          await this.replace(current);
        } catch (error) {
          this.lastProblem = describeError(error);
          if (current.credential.type === "oauth" && current.credential.expires <= Date.now()) continue;
        }
      }
      return { id: current.id, provider, key: keyOf(current.credential, provider), credential: current.credential, source: "auth broker" };
    }
    return undefined;
  }

  keys(provider: string): StoredKey[] {
    return this.entries()
      .filter((entry) => entry.provider === provider)
      .sort((a, b) => b.id - a.id)
      .map((entry) => ({ id: entry.id, key: keyOf(entry.credential, provider) }));
  }

  /**
   * Blocked here at once, and reported to the broker, which blocks it for every client and keeps the
   * limit for `GET /v1/usage`. A broker out of reach leaves the local block alone to do the work.
   */
  async block(id: number, provider: string, untilMs: number): Promise<void> {
    this.blocked.set(id, untilMs);
    try {
      await this.request("POST", `/v1/credential/${id}/block`, wire().OkResponse, { providerKey: provider, untilMs });
    } catch (error) {
      this.lastProblem = describeError(error);
    }
  }

  /**
   * Follows the broker's changes (`GET /v1/snapshot/stream`) in the background until closed, so a
   * long-running process sees credentials added, removed, disabled or refreshed on the broker.
   */
  follow(): void {
    if (this.follower) return;
    const { followSnapshots } = require("./follow.ts") as typeof import("./follow.ts");
    this.follower = followSnapshots(this.config, (event) => this.apply(event));
  }

  secrets(): string[] {
    return [this.config.token, ...this.entries().flatMap((entry) => secretsOf(entry.credential))];
  }

  close(): void {
    this.follower?.close();
    this.follower = undefined;
  }

  /** One call of the broker's API; the answer is checked against `schema` (see wire.ts). */
  async request<S extends z.ZodType>(method: "GET" | "POST", path: string, schema: S, body?: unknown): Promise<z.output<S>> {
    let response: Response;
    try {
      response = await fetch(`${this.config.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${this.config.token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (error) {
      throw new OmpError(`the auth broker at ${this.config.url} cannot be reached (${describeError(error)}); is \`omp auth-broker serve\` running?`);
    }
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    if (!response.ok) {
      const message = (parsed as { error?: unknown } | undefined)?.error;
      const hint = response.status === 401 ? ": the token is wrong (compare with `omp auth-broker token` on the broker host)" : "";
      throw new OmpError(`the auth broker answered ${response.status}${typeof message === "string" ? ` (${message})` : ""}${hint}`);
    }
    const checked = schema.safeParse(parsed);
    if (!checked.success) throw new OmpError(`the auth broker's answer to ${method} ${path} is not what this omp understands (${describeZodError(checked.error, "body")}); are the broker and omp of very different versions?`);
    return checked.data;
  }

  private apply(event: AppliedEvent): void {
    if (event.kind === "snapshot") {
      const { kind: _kind, ...snapshot } = event;
      this.snapshot = snapshot;
    } else {
      // The stream always opens with a full snapshot, so there is one to change.
      if (!this.snapshot) return;
      const others = this.snapshot.credentials.filter((old) => old.id !== (event.kind === "entry" ? event.entry.id : event.id));
      // Dated by the broker's clock, so the cache's freshness counts from this change.
      this.snapshot = { ...this.snapshot, generation: event.generation, generatedAt: event.serverNowMs, serverNowMs: event.serverNowMs, credentials: event.kind === "entry" ? [...others, event.entry] : others };
    }
    this.save();
  }

  /** Writes the current snapshot to the cache, one write at a time so an older one never lands last. */
  private save(): Promise<void> {
    this.saving = this.saving.then(() => (this.snapshot ? writeSnapshotCache(this.config, this.snapshot) : undefined)).catch((error) => {
      this.lastProblem = describeError(error);
    });
    return this.saving;
  }

  private async replace(entry: SnapshotEntry): Promise<void> {
    if (!this.snapshot) return;
    this.snapshot = { ...this.snapshot, credentials: this.snapshot.credentials.map((old) => (old.id === entry.id ? entry : old)) };
    await this.save();
  }
}
