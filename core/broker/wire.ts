import { z } from "zod";

/**
 * The broker's HTTP API. What the broker takes is checked strictly (unknown keys refused); what it
 * sends, clients check with schemas that drop keys they do not know, so a newer broker's
 * additions do not break them.
 */

/**
 * Every stored field has a ceiling: keys and tokens are a few KB at most (JWT access tokens the
 * largest), names and URLs far less. A field over it is a mistake or an attack, and each byte
 * stored is pushed to every subscriber.
 */
export const MAX_SECRET_CHARS = 16 * 1024;
export const MAX_FIELD_CHARS = 1024;
const secret = z.string().min(1).max(MAX_SECRET_CHARS, `longer than ${MAX_SECRET_CHARS} characters; no real key or token is`);
const field = z.string().max(MAX_FIELD_CHARS, `longer than ${MAX_FIELD_CHARS} characters`);

export const ApiKeyCredentialWire = z.strictObject({ type: z.literal("api_key"), key: secret, source: z.literal("login").optional() });

export const OAuthCredentialWire = z.strictObject({
  type: z.literal("oauth"),
  access: secret,
  refresh: secret,
  expires: z.number().int().nonnegative(),
  email: field.optional(),
  accountId: field.optional(),
  projectId: field.optional(),
  enterpriseUrl: field.optional(),
  apiBase: field.optional(),
});

export const CredentialWire = z.discriminatedUnion("type", [ApiKeyCredentialWire, OAuthCredentialWire]);

export const PostCredentialBody = z.strictObject({ provider: z.string().max(100).regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/), credential: CredentialWire });

export const DisableBody = z.strictObject({ cause: z.string().max(500).optional() });

export const SnapshotEntry = z.object({
  id: z.number().int(),
  provider: z.string(),
  credential: z.discriminatedUnion("type", [ApiKeyCredentialWire.strip(), OAuthCredentialWire.strip()]),
  identityKey: z.string().nullable(),
  rotatesInMs: z.number().nullable(),
  blocks: z.array(z.object({ providerKey: z.string(), blockScope: z.string(), blockedUntilMs: z.number() })).optional(),
});
export type SnapshotEntry = z.output<typeof SnapshotEntry>;

const Refresher = z.object({ enabled: z.boolean(), intervalMs: z.number(), skewMs: z.number(), nextSweepInMs: z.number() });

export const Snapshot = z.object({
  generation: z.number().int(),
  generatedAt: z.number(),
  serverNowMs: z.number(),
  refresher: Refresher,
  credentials: z.array(SnapshotEntry),
});
export type Snapshot = z.output<typeof Snapshot>;

/** `POST /v1/credential/:id/refresh`. */
export const EntryResponse = z.object({ entry: SnapshotEntry });
/** `POST /v1/credential`. */
export const EntriesResponse = z.object({ entries: z.array(SnapshotEntry) });
/** `POST /v1/credential/:id/block` and `…/disable`. */
export const OkResponse = z.object({ ok: z.literal(true) });

/** What `GET /v1/snapshot/stream` sends: a full snapshot on connect, then changes. */
export const StreamEvent = z.discriminatedUnion("kind", [
  Snapshot.extend({ kind: z.literal("snapshot") }),
  z.object({ kind: z.literal("entry"), generation: z.number().int(), serverNowMs: z.number(), entry: SnapshotEntry }),
  z.object({ kind: z.literal("removed"), generation: z.number().int(), serverNowMs: z.number(), id: z.number().int() }),
  /** The broker dropped this stream (it fell behind); a fresh connection starts from a new snapshot. */
  z.object({ kind: z.literal("resync"), generation: z.number().int(), reason: z.string() }),
]);
export type StreamEvent = z.output<typeof StreamEvent>;

/** `{error, code}` for every failure; a field name when the body was wrong. */
export function errorBody(error: string, code: string, extra: Record<string, unknown> = {}) {
  return { error, code, ...extra };
}

/** `POST /v1/credential/:id/block`: a client met a usage limit that resets at `untilMs`. */
export const BlockBody = z.strictObject({ providerKey: z.string().min(1).max(200).optional(), untilMs: z.number().int().positive() });

const UsageAmount = z.object({
  used: z.number().optional(),
  limit: z.number().optional(),
  remaining: z.number().optional(),
  usedFraction: z.number().min(0).max(1).optional(),
  remainingFraction: z.number().min(0).max(1).optional(),
  unit: z.enum(["percent", "tokens", "requests", "credits", "usd", "minutes", "bytes", "unknown"]),
});

export const UsageLimit = z.object({
  id: z.string(),
  label: z.string(),
  scope: z.object({ provider: z.string(), credentialId: z.number().int().optional(), accountId: z.string().optional(), account: z.string().optional() }),
  window: z.object({ id: z.string(), label: z.string(), durationMs: z.number().optional(), resetsAt: z.number().optional() }).optional(),
  amount: UsageAmount,
  status: z.enum(["ok", "warning", "exhausted", "unknown"]).optional(),
  notes: z.array(z.string()).optional(),
});

/** One credential's usage as the broker knows it (the original omp's UsageReport, `raw` left out). */
export const UsageReport = z.object({
  provider: z.string(),
  fetchedAt: z.number(),
  limits: z.array(UsageLimit),
  notes: z.array(z.string()).optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});
export type UsageReport = z.output<typeof UsageReport>;

/** `GET /v1/usage`. */
export const UsageResponse = z.object({ generatedAt: z.number(), reports: z.array(UsageReport) });
export type UsageResponse = z.output<typeof UsageResponse>;
