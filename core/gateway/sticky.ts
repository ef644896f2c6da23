import type { Credential } from "./upstream.ts";

const MAX_CONVERSATIONS = 10_000;
/** How long an account that hit its limit is passed over when the provider named no wait. */
const DEFAULT_BLOCK_MS = 60_000;

/**
 * Which credential serves each conversation. A conversation keeps its credential while it works,
 * so the provider's prompt cache (keyed by account) keeps hitting; a credential that hit a usage
 * limit is passed over until its wait ends, and the conversation moves to another for good.
 */
export class StickyCredentials {
  private readonly chosen = new Map<string, string>();
  private readonly blockedUntil = new Map<string, number>();

  pick(conversation: string, credentials: Credential[], exclude: ReadonlySet<string> = new Set()): Credential | undefined {
    const now = Date.now();
    const untried = credentials.filter((c) => !exclude.has(c.label));
    if (untried.length === 0) return undefined;
    let usable = untried.filter((c) => (this.blockedUntil.get(c.label) ?? 0) <= now);
    // All at their limit: the provider, not a guess here, says whether the soonest to reset works again.
    if (usable.length === 0) usable = [untried.reduce((a, b) => ((this.blockedUntil.get(a.label) ?? 0) <= (this.blockedUntil.get(b.label) ?? 0) ? a : b))];
    const previous = this.chosen.get(conversation);
    const kept = usable.find((c) => c.label === previous);
    if (kept) {
      // Refresh its place in the insertion-ordered map: the least recently used is evicted first.
      this.chosen.delete(conversation);
      this.chosen.set(conversation, kept.label);
      return kept;
    }
    const pick = usable[hash(conversation) % usable.length]!;
    this.chosen.set(conversation, pick.label);
    if (this.chosen.size > MAX_CONVERSATIONS) this.chosen.delete(this.chosen.keys().next().value!);
    return pick;
  }

  block(label: string, retryAfterMs: number | undefined): void {
    this.blockedUntil.set(label, Date.now() + (retryAfterMs ?? DEFAULT_BLOCK_MS));
  }
}

function hash(text: string): number {
  return Number.parseInt(new Bun.CryptoHasher("sha256").update(text).digest("hex").slice(0, 8), 16);
}

/** A conversation's key when the client names none: its system prompt and first user turn, which stay put as it grows. */
export function conversationHash(parts: unknown[]): string {
  return `h_${new Bun.CryptoHasher("sha256").update(JSON.stringify(parts)).digest("hex").slice(0, 24)}`;
}
